${TMP1}/out/broken.d: ${SRC}/tests/fixtures/broken.rs

${TMP1}/out/broken.ll: ${SRC}/tests/fixtures/broken.rs

${TMP1}/out/broken.mir: ${SRC}/tests/fixtures/broken.rs

${SRC}/tests/fixtures/broken.rs:
