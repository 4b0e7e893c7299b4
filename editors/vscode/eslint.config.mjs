// ESLint for the extension: the recommended JavaScript and TypeScript rules, run by
// scripts/check.sh (npm run lint).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/**", "dist/**", "node_modules/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
);
