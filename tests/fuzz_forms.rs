//! The forms of C that the random-program generator can produce (issue
//! 14: sizes as macros with operators, `/` and `%`, `#ifdef` and
//! `#ifndef` sizes, comments, brace-less bodies, `else`, copy-back loops,
//! block-scoped temporaries, VLA kernels called with tiny sizes, OpenMP).
//!
//! For each form alone, generated programs are reproducible, well defined
//! for every build and call they declare, show the form in their text,
//! compile with `cc` and print the same under every other build that
//! keeps the sizes (`-fopenmp` with 4 threads), and parse with lang-c.

use std::path::Path;
use std::time::Duration;

use polyfold::fuzz::check::{builds_for, compile, run_with_env, scratch_dir};
use polyfold::fuzz::generate::{generate, generate_with};
use polyfold::fuzz::program::{Forms, GenProgram, SizeForm};

/// The text between `#pragma scop` and `#pragma endscop`.
fn scop_text(text: &str) -> &str {
    text.split("#pragma scop")
        .nth(1)
        .and_then(|rest| rest.split("#pragma endscop").next())
        .unwrap_or("")
}

/// Whether `program` (printed as `text`) uses the form `name`.
fn shows_form(name: &str, program: &GenProgram, text: &str) -> bool {
    let scop = scop_text(text);
    match name {
        "derived-macros" => ["LAST", "PLUS", "HALF", "QUART"]
            .iter()
            .any(|m| text.contains(&format!("#define {m}")) && scop.contains(m)),
        "div-mod" => scop.contains(" / ") || scop.contains(" % "),
        "ifdef-sizes" => text.contains("SMALL_DATASET"),
        "other-sizes" => text.contains("#ifndef N") && !program.shape.configs.is_empty(),
        "comments" => scop.contains("// ") || scop.contains("/* "),
        "braceless" => scop.lines().any(|l| {
            let l = l.trim();
            (l.starts_with("for") || l.starts_with("if")) && l.ends_with(')')
        }),
        "else" => scop.contains("else"),
        "copy-back" => scop.contains("- 1 >= 0 && N"),
        "block-scoped" => scop.lines().any(|l| l.trim_start().starts_with("double ")),
        "vla" => {
            text.contains("static void kernel(int ")
                && program
                    .shape
                    .calls
                    .iter()
                    .any(|c| c.iter().any(|v| *v <= 3))
        }
        "openmp" => text.contains("#pragma omp parallel for"),
        _ => panic!("unknown form {name}"),
    }
}

/// Compiles `source` with `flags`, runs it with `env`; its output.
fn build_and_run(source: &Path, tag: &str, flags: &[&str], env: &[(String, String)]) -> Vec<u8> {
    let exe = source.with_file_name(format!("{tag}.exe"));
    let mut all = vec!["-std=c11", "-O1", "-w", "-fsanitize=address,undefined"];
    all.extend_from_slice(flags);
    compile(source, &exe, &all).unwrap_or_else(|e| panic!("{tag} does not compile: {e}"));
    run_with_env(&exe, Duration::from_secs(20), env)
        .unwrap_or_else(|e| panic!("{tag} does not run: {e}"))
}

#[test]
fn each_form_appears_compiles_and_parses() {
    let scratch = scratch_dir("fuzz-forms").expect("scratch directory");
    for name in Forms::NAMES {
        let forms = Forms::parse(name).expect("known form");
        let mut shown = 0;
        let mut compiled = 0;
        for seed in 0..60 {
            let program = generate_with(seed, &forms);
            assert_eq!(program, generate_with(seed, &forms), "{name}, seed {seed}");
            if let Err(e) = program.check_well_defined() {
                panic!("{name}, seed {seed}: not well defined: {e:?}");
            }
            let text = program.to_c();
            if !shows_form(name, &program, &text) {
                continue;
            }
            shown += 1;
            if compiled >= 3 {
                continue;
            }
            compiled += 1;
            let tag = format!("{name}_{seed}");
            let path = scratch.join(format!("{tag}.c"));
            std::fs::write(&path, &text).expect("write");
            let plain = build_and_run(&path, &tag, &[], &[]);
            assert!(!plain.is_empty());
            for (index, build) in builds_for(&program).iter().enumerate() {
                let flags: Vec<&str> = build.flags.iter().map(String::as_str).collect();
                if flags.contains(&"-fsanitize=thread") {
                    continue;
                }
                let other = build_and_run(&path, &format!("{tag}_{index}"), &flags, &build.env);
                if !build.changes_sizes {
                    assert_eq!(
                        String::from_utf8_lossy(&plain),
                        String::from_utf8_lossy(&other),
                        "{name}, seed {seed}: the build {build:?} prints the same"
                    );
                }
            }
            lang_c::driver::parse(&lang_c::driver::Config::default(), &path)
                .unwrap_or_else(|e| panic!("{name}, seed {seed}: lang-c: {e}"));
        }
        assert!(
            shown >= 3,
            "the form {name} shows in only {shown} of 60 programs"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn classic_forms_keep_the_old_programs() {
    for seed in 0..50 {
        let classic = generate_with(seed, &Forms::classic());
        assert_eq!(classic, generate(seed));
        let text = classic.to_c();
        for absent in ["#ifdef", "#ifndef", "//", "omp", "else", "kernel(int"] {
            assert!(!text.contains(absent), "seed {seed}: {absent}");
        }
        assert_eq!(classic.shape, Default::default());
    }
}

#[test]
fn other_sizes_and_tiny_calls_are_really_used() {
    // Over many programs with every form, some are rebuilt with `-D`
    // (guarded or dataset sizes) and some call their VLA kernel with a
    // size of 1, and every one of them is well defined under them.
    let all = Forms::all();
    let (mut rebuilt, mut tiny) = (0, 0);
    for seed in 0..150 {
        let program = generate_with(seed, &all);
        assert!(program.check_well_defined().is_ok());
        rebuilt += usize::from(!program.shape.configs.is_empty());
        let has_param =
            (0..program.sizes.len()).any(|i| program.size_form(i) == SizeForm::Parameter);
        if has_param && program.shape.calls.iter().any(|c| c.contains(&1)) {
            tiny += 1;
        }
    }
    assert!(rebuilt >= 10, "only {rebuilt} programs have other builds");
    assert!(
        tiny >= 10,
        "only {tiny} programs call their kernel with a size 1"
    );
}
