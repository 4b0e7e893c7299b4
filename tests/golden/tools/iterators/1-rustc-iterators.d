${TMP1}/out/iterators.d: ${SRC}/tests/fixtures/iterators.rs

${TMP1}/out/iterators.ll: ${SRC}/tests/fixtures/iterators.rs

${TMP1}/out/iterators.mir: ${SRC}/tests/fixtures/iterators.rs

${SRC}/tests/fixtures/iterators.rs:
