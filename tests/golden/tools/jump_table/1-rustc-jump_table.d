${TMP1}/out/jump_table.d: ${SRC}/tests/fixtures/jump_table.rs

${TMP1}/out/jump_table.ll: ${SRC}/tests/fixtures/jump_table.rs

${TMP1}/out/jump_table.mir: ${SRC}/tests/fixtures/jump_table.rs

${SRC}/tests/fixtures/jump_table.rs:
