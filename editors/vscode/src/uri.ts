// Virtual document URIs: `kernelscope:/<stage>/<absolute source path>.<ext>[?rev=N]`.
//
// Each generated stage of a source file is shown as a read-only document whose URI names
// the stage and the source, as docs/lsp-extensions.md defines it. These functions build and
// read such URIs as plain strings so that they can be tested without VS Code; the
// extension turns them into `vscode.Uri` at the edge.

import type { Stage } from "./lsp_ext";

export const SCHEME = "kernelscope";

const EXTENSIONS: Record<Stage, string> = {
  mir: "mir",
  "llvm-ir": "ll",
  ptx: "ptx",
  sass: "sass",
};

const TITLES: Record<Stage, string> = {
  mir: "MIR",
  "llvm-ir": "LLVM IR",
  ptx: "PTX",
  sass: "SASS",
};

/** The file extension a stage's view carries, which also selects its grammar. */
export function stageExtension(stage: Stage): string {
  return EXTENSIONS[stage] ?? stage;
}

/** The stage's name as the user reads it ("LLVM IR"). */
export function stageTitle(stage: Stage): string {
  return TITLES[stage] ?? stage;
}

export function isStage(s: string): s is Stage {
  return Object.prototype.hasOwnProperty.call(EXTENSIONS, s);
}

/** What a virtual URI names. */
export interface ArtifactAddress {
  stage: Stage;
  /** Absolute path of the source file. */
  sourcePath: string;
  /** A pinned revision; absent for a view that follows the latest compile. */
  revision?: number;
}

/** Percent-encodes each path segment, keeping the slashes. */
function encodePath(path: string): string {
  return path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}

/** The virtual URI of a stage of a source file. */
export function artifactUri(address: ArtifactAddress): string {
  const { stage, sourcePath, revision } = address;
  if (!sourcePath.startsWith("/")) {
    throw new Error(`kernelscope: source path must be absolute: ${sourcePath}`);
  }
  const query = revision === undefined ? "" : `?rev=${revision}`;
  return `${SCHEME}:/${stage}${encodePath(sourcePath)}.${stageExtension(stage)}${query}`;
}

/**
 * A view's title: the source path as the user knows it and the stage
 * (`kern/src/lib.rs · PTX`), given to VS Code as the label of the view's tab.
 */
export function viewTitle(relativeSourcePath: string, stage: Stage): string {
  return `${relativeSourcePath} · ${stageTitle(stage)}`;
}

/** Reads a virtual URI back; undefined when it is not one of ours. */
export function parseArtifactUri(uri: string): ArtifactAddress | undefined {
  const match = /^kernelscope:(?:\/\/[^/?#]*)?\/([^/?#]+)(\/[^?#]*)(?:\?([^#]*))?/.exec(uri);
  if (!match) return undefined;
  const [, stage, encodedPath, query] = match;
  if (!isStage(stage)) return undefined;
  const ext = "." + stageExtension(stage);
  let path: string;
  try {
    path = decodeURIComponent(encodedPath);
  } catch {
    return undefined;
  }
  if (!path.endsWith(ext)) return undefined;
  const address: ArtifactAddress = { stage, sourcePath: path.slice(0, -ext.length) };
  // VS Code percent-encodes the `=` of a query (`?rev%3D7`) when it prints a URI.
  let decodedQuery = query ?? "";
  try {
    decodedQuery = decodeURIComponent(decodedQuery);
  } catch {
    // Keep it as it is: a malformed query just pins no revision.
  }
  const rev = /(?:^|&)rev=(\d+)(?:&|$)/.exec(decodedQuery);
  if (rev) address.revision = Number(rev[1]);
  return address;
}

/** The `file:` URI of an absolute path, each segment percent-encoded. */
export function fileUri(path: string): string {
  return "file://" + encodePath(path);
}

/** The path of a `file:` URI. */
export function filePath(uri: string): string | undefined {
  const match = /^file:\/\/[^/]*(\/[^?#]*)/.exec(uri);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * True when two URIs name the same resource, whatever each side percent-encoded
 * (VS Code encodes `:` and `@`, the server may not).
 */
export function sameUri(a: string, b: string): boolean {
  if (a === b) return true;
  const decode = (u: string) => {
    try {
      return decodeURIComponent(u);
    } catch {
      return u;
    }
  };
  return decode(a) === decode(b);
}
