//! Issue 51, item 5: files are byte sequences. A Latin-1 byte in a
//! comment or a string literal (not UTF-8) is kept exactly, and a file
//! whose lines end in CRLF gets CRLF on the lines polyfold adds. The
//! temporary is still shrunk; the output is compiled and run against the
//! original.

use crate::common;

/// A producer and a consumer loop over `t` (fused, `t` one cell), with
/// `é` (0xE9) in Latin-1 in the first comment and in a string, `µ` (0xB5)
/// in a comment inside `main`, every line ending in CRLF.
fn kernel() -> Vec<u8> {
    let lines: [&[u8]; 25] = [
        b"/* Noyau de d\xe9monstration, caf\xe9 */",
        b"#include <stdio.h>",
        b"#define N 64",
        b"static void k(double a[N], double b[N])",
        b"{",
        b"    int i;",
        b"    double t[N];",
        b"#pragma scop",
        b"    for (i = 0; i < N; i++)",
        b"        t[i] = a[i] * 2.0;",
        b"    for (i = 0; i < N; i++)",
        b"        b[i] = t[i] + 1.0;",
        b"#pragma endscop",
        b"}",
        b"int main(void)",
        b"{",
        b"    double a[N], b[N];",
        b"    int i;",
        b"    /* \xb5-step */",
        b"    for (i = 0; i < N; i++)",
        b"        a[i] = i * 0.5;",
        b"    k(a, b);",
        b"    printf(\"%g \xe9\\n\", b[N - 1]);",
        b"    return 0;",
        b"}",
    ];
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The bytes of `data` outside ASCII, in order.
fn high_bytes(data: &[u8]) -> Vec<u8> {
    data.iter().copied().filter(|b| *b >= 0x80).collect()
}

fn check_output(input: &[u8], output: &[u8]) {
    // The Latin-1 bytes, as they were.
    assert_eq!(high_bytes(output), vec![0xe9, 0xe9, 0xb5, 0xe9]);
    // Every line ends in CRLF, the ones polyfold wrote too.
    let breaks = output.iter().filter(|b| **b == b'\n').count();
    let crlf = output.windows(2).filter(|w| w == b"\r\n").count();
    assert_eq!(breaks, crlf, "{}", String::from_utf8_lossy(output));
    // The first lines and the whole of `main` are unchanged bytes.
    let text = String::from_utf8_lossy(output);
    assert!(
        text.contains("    double t; /* polyfold: t[i] -> t */\r\n"),
        "{text}"
    );
    let from_main = |d: &[u8]| -> Vec<u8> {
        let at = d
            .windows(14)
            .position(|w| w == b"int main(void)")
            .expect("main");
        d[at..].to_vec()
    };
    assert_eq!(from_main(output), from_main(input));
    assert_eq!(&output[..40], &input[..40]);
}

#[test]
fn latin1_bytes_and_crlf_lines_are_kept_and_the_temporary_shrinks() {
    let dir = common::scratch("cli", "bytes");
    let path = dir.join("latin1_crlf.c");
    let input = kernel();
    std::fs::write(&path, &input).expect("write");
    let out = common::polyfold(&[&path]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    check_output(&input, &out.stdout);
    // Compiled and run: the same output (the Latin-1 byte printed too).
    let run = |bytes: &[u8], tag: &str| -> Vec<u8> {
        let p = dir.join(format!("{tag}.c"));
        std::fs::write(&p, bytes).expect("write");
        polyfold_fuzz::check::build_and_run(
            &p,
            tag,
            &dir,
            true,
            std::time::Duration::from_secs(20),
            None,
        )
        .unwrap_or_else(|(_, e)| panic!("{tag}: {e}"))
    };
    let expected = run(&input, "original");
    assert_eq!(
        expected, b"64 \xe9\n",
        "hand-computed: b[63] = 63 * 0.5 * 2 + 1"
    );
    assert_eq!(run(&out.stdout, "output"), expected);
    // `-i` writes the same bytes; a second run changes nothing.
    let out_i = common::polyfold(&[std::ffi::OsStr::new("-i"), path.as_os_str()]);
    assert_eq!(
        out_i.status.code(),
        Some(0),
        "{}",
        common::text(&out_i.stderr)
    );
    let rewritten = std::fs::read(&path).expect("read");
    assert_eq!(rewritten, out.stdout);
    let check = common::polyfold(&[std::ffi::OsStr::new("--check"), path.as_os_str()]);
    assert_eq!(check.status.code(), Some(0), "a fixed point");
    // Standard input too.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &input).expect("write");
    let piped = child.wait_with_output().expect("wait");
    assert_eq!(piped.stdout, out.stdout);
}

/// An LF file keeps LF, and a UTF-8 `é` is two bytes, kept as they are.
#[test]
fn an_lf_utf8_file_keeps_its_bytes() {
    let dir = common::scratch("cli", "bytes_lf");
    let path = dir.join("utf8_lf.c");
    let input: Vec<u8> = kernel()
        .iter()
        .copied()
        .filter(|b| *b != b'\r')
        .flat_map(|b| match b {
            0xe9 => vec![0xc3, 0xa9],
            0xb5 => vec![0xc2, 0xb5],
            b => vec![b],
        })
        .collect();
    std::fs::write(&path, &input).expect("write");
    let out = common::polyfold(&[&path]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    assert!(!out.stdout.contains(&b'\r'));
    assert_eq!(high_bytes(&out.stdout), high_bytes(&input));
    let text = String::from_utf8(out.stdout).expect("UTF-8 stays UTF-8");
    assert!(
        text.contains("    double t; /* polyfold: t[i] -> t */\n"),
        "{text}"
    );
}
