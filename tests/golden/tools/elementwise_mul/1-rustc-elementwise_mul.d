${TMP1}/out/elementwise_mul.d: ${SRC}/examples/elementwise_mul.rs

${TMP1}/out/elementwise_mul.ll: ${SRC}/examples/elementwise_mul.rs

${TMP1}/out/elementwise_mul.mir: ${SRC}/examples/elementwise_mul.rs

${SRC}/examples/elementwise_mul.rs:
