${TMP1}/out/local_array.d: ${SRC}/tests/fixtures/local_array.rs

${TMP1}/out/local_array.ll: ${SRC}/tests/fixtures/local_array.rs

${TMP1}/out/local_array.mir: ${SRC}/tests/fixtures/local_array.rs

${SRC}/tests/fixtures/local_array.rs:
