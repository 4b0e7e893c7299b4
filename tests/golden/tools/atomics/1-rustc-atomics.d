${TMP1}/out/atomics.d: ${SRC}/tests/fixtures/atomics.rs

${TMP1}/out/atomics.ll: ${SRC}/tests/fixtures/atomics.rs

${TMP1}/out/atomics.mir: ${SRC}/tests/fixtures/atomics.rs

${SRC}/tests/fixtures/atomics.rs:
