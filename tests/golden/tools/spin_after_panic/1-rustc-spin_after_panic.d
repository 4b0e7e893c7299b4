${TMP1}/out/spin_after_panic.d: ${SRC}/tests/fixtures/spin_after_panic.rs

${TMP1}/out/spin_after_panic.ll: ${SRC}/tests/fixtures/spin_after_panic.rs

${TMP1}/out/spin_after_panic.mir: ${SRC}/tests/fixtures/spin_after_panic.rs

${SRC}/tests/fixtures/spin_after_panic.rs:
