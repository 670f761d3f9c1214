//! `--message-format sarif` (issue 50, item 8): one SARIF 2.1.0 log on
//! stderr for the whole run, with polyfold's rules and each diagnostic's
//! rule, level, message and location.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn polyfold(dir: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyfold-sarif-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// A kernel with a call statement in its loop (PF023) on line 6, column
/// 5: the loop is no SCoP (PF003, a note about the whole file).
const KERNEL: &str = "#define N 16\nvoid g(double);\nvoid f(const double in[N], double out[N]) {\n  double t[N];\n  for (int i = 0; i < N; i++) {\n    g(in[i]);\n    t[i] = in[i] * 2.0;\n    out[i] = t[i] + 1.0;\n  }\n}\n";

fn sarif_log(out: &Output) -> Value {
    serde_json::from_slice(&out.stderr).unwrap_or_else(|e| {
        panic!(
            "stderr is not one JSON document ({e}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn the_log_has_the_required_sarif_fields_and_the_right_location() {
    let dir = scratch("fields");
    fs::write(dir.join("k.c"), KERNEL).expect("write");
    let out = polyfold(&dir, &["--message-format", "sarif", "k.c"]);
    assert_eq!(out.status.code(), Some(0));
    // stdout keeps the transformed program.
    assert!(String::from_utf8_lossy(&out.stdout).contains("g(in[i]);"));
    let log = sarif_log(&out);
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(
        log["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "polyfold");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    for code in ["PF001", "PF016", "PF023", "PF041"] {
        assert!(ids.contains(&code), "{code} in {ids:?}");
    }
    for rule in rules {
        assert!(rule["shortDescription"]["text"].is_string(), "{rule}");
        assert!(rule["defaultConfiguration"]["level"].is_string(), "{rule}");
    }
    let results = runs[0]["results"].as_array().expect("results");
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["PF023", "PF003"]);
    // The whole-file note has a file and no region.
    let note = &results[1]["locations"][0]["physicalLocation"];
    assert_eq!(note["artifactLocation"]["uri"], "k.c");
    assert!(note.get("region").is_none(), "{note}");
    assert_eq!(results[1]["level"], "note");
    let r = &results[0];
    assert_eq!(r["ruleId"], "PF023");
    assert_eq!(r["level"], "warning");
    let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
    assert_eq!(rules[index]["id"], "PF023");
    assert!(
        r["message"]["text"]
            .as_str()
            .expect("text")
            .starts_with("unsupported statement"),
        "{r}"
    );
    let location = &r["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "k.c");
    // `g(in[i]);` is line 6, from column 5 (four blanks before it).
    assert_eq!(location["region"]["startLine"], 6);
    assert_eq!(location["region"]["startColumn"], 5);
    assert_eq!(runs[0]["invocations"][0]["executionSuccessful"], true);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn one_log_for_several_files_errors_included() {
    let dir = scratch("several");
    fs::write(dir.join("k.c"), KERNEL).expect("write");
    fs::write(dir.join("bad.c"), "int f( {\n").expect("write");
    let out = polyfold(
        &dir,
        &[
            "--check",
            "--message-format",
            "sarif",
            "k.c",
            "bad.c",
            "gone.c",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let log = sarif_log(&out);
    let run = &log["runs"][0];
    let results = run["results"].as_array().expect("results");
    let rules: Vec<(&str, &str)> = results
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap(), r["level"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [("PF023", "warning"), ("PF003", "note"), ("PF001", "error")]
    );
    let notes: Vec<&str> = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications")
        .iter()
        .map(|n| n["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("cannot read gone.c")),
        "{notes:?}"
    );
    assert_eq!(run["invocations"][0]["executionSuccessful"], false);
    // -q leaves out the warnings, not the errors.
    let out = polyfold(&dir, &["-q", "--message-format", "sarif", "k.c", "bad.c"]);
    let log = sarif_log(&out);
    let ids: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["PF001"]);
    // `verify` prints the same kind of log.
    let out = polyfold(&dir, &["verify", "--message-format", "sarif", "k.c"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(sarif_log(&out)["runs"][0]["results"][0]["ruleId"], "PF023");
    let _ = fs::remove_dir_all(&dir);
}
