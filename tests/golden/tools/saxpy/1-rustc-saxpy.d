${TMP1}/out/saxpy.d: ${SRC}/examples/saxpy.rs

${TMP1}/out/saxpy.ll: ${SRC}/examples/saxpy.rs

${TMP1}/out/saxpy.mir: ${SRC}/examples/saxpy.rs

${SRC}/examples/saxpy.rs:
