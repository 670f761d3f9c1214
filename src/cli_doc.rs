//! The command-line reference, `docs/cli.md`, generated from the clap
//! declaration of [`crate::cli::Cli`].
//!
//! [`reference_markdown`] walks `polyfold` and each visible subcommand and
//! prints, per command, its description, its usage line, its arguments and
//! its options with their help text, default values and possible values.
//! `tests/cli/docs.rs` fails when `docs/cli.md` is not this text
//! (`POLYFOLD_BLESS=1 cargo test --release --test cli docs::` rewrites it).
//! Nothing here decides anything: it only prints what clap declares.

use clap::{Arg, ArgAction, Command, CommandFactory};

/// The Markdown text of `docs/cli.md`.
pub fn reference_markdown() -> String {
    let mut root = crate::cli::Cli::command();
    // Propagates global options (`--log`) into the subcommands and fills
    // in the generated `--help`/`--version` arguments, as a real run does.
    root.build();
    let mut out = String::new();
    out.push_str("# Command-line reference\n\n");
    out.push_str(
        "Generated from polyfold's clap declaration (`src/cli.rs`) by\n\
         `polyfold::cli_doc::reference_markdown`; do not edit by hand. A test\n\
         (`tests/cli/docs.rs`) fails when this page differs from what the\n\
         declaration gives; `POLYFOLD_BLESS=1 cargo test --release --test cli docs::`\n\
         rewrites it. `polyfold --help` and `polyfold COMMAND --help` print the\n\
         same text.\n\n",
    );
    // clap's own `help` subcommand is left out: `--help` is listed.
    let subcommands: Vec<&Command> = root
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .collect();
    out.push_str("Commands:\n\n");
    out.push_str(&format!("- [`polyfold`](#polyfold): {}\n", about(&root)));
    for sub in &subcommands {
        let name = format!("polyfold {}", sub.get_name());
        out.push_str(&format!(
            "- [`{name}`](#{}): {}\n",
            anchor(&name),
            about(sub)
        ));
    }
    out.push('\n');
    command_section(&mut out, &root, "polyfold");
    for sub in &subcommands {
        command_section(&mut out, sub, &format!("polyfold {}", sub.get_name()));
    }
    // One newline at the end, none doubled.
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The section of one command: heading, description, usage, arguments,
/// options and the text after the help.
fn command_section(out: &mut String, cmd: &Command, name: &str) {
    out.push_str(&format!("## `{name}`\n\n"));
    let text = about(cmd);
    if !text.is_empty() {
        out.push_str(&text);
        out.push_str("\n\n");
    }
    let usage = cmd.clone().render_usage().to_string();
    out.push_str("```text\n");
    out.push_str(usage.trim_end());
    out.push_str("\n```\n\n");
    let visible: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set()).collect();
    let positionals: Vec<&Arg> = visible
        .iter()
        .copied()
        .filter(|a| a.is_positional())
        .collect();
    let options: Vec<&Arg> = visible
        .iter()
        .copied()
        .filter(|a| !a.is_positional())
        .collect();
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for arg in positionals {
            arg_item(out, arg, &positional_name(arg));
        }
        out.push('\n');
    }
    if !options.is_empty() {
        out.push_str("Options:\n\n");
        for arg in options {
            arg_item(out, arg, &option_name(arg));
        }
        out.push('\n');
    }
    if let Some(after) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        out.push_str("```text\n");
        out.push_str(after.to_string().trim_end());
        out.push_str("\n```\n\n");
    }
}

/// One list item: the argument's spelling, its help, its default and its
/// possible values.
fn arg_item(out: &mut String, arg: &Arg, spelling: &str) {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    out.push_str(&format!("- {spelling}"));
    if !help.trim().is_empty() {
        out.push_str(": ");
        out.push_str(&indent_continuation(&sentence(help.trim())));
    }
    out.push('\n');
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if !defaults.is_empty() && takes_value(arg) {
        out.push_str(&format!("  Default: {}.\n", defaults.join(", ")));
    }
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| match v.get_help() {
            Some(h) => format!("`{}` ({})", v.get_name(), h),
            None => format!("`{}`", v.get_name()),
        })
        .collect();
    if !possible.is_empty() && takes_value(arg) {
        out.push_str(&format!("  Possible values: {}.\n", possible.join(", ")));
    }
}

/// Whether the argument takes a value (a flag's implicit `true`/`false`
/// are not worth printing).
fn takes_value(arg: &Arg) -> bool {
    !matches!(
        arg.get_action(),
        ArgAction::SetTrue
            | ArgAction::SetFalse
            | ArgAction::Count
            | ArgAction::Help
            | ArgAction::HelpShort
            | ArgAction::HelpLong
            | ArgAction::Version
    )
}

/// `` `-i`, `--in-place` `` or `` `-D <NAME[=TOKENS]>` ``.
fn option_name(arg: &Arg) -> String {
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let value = if takes_value(arg) {
        let value_names: Vec<String> = arg
            .get_value_names()
            .map(|v| v.iter().map(|n| n.to_string()).collect())
            .unwrap_or_else(|| vec![arg.get_id().as_str().to_uppercase()]);
        let optional = arg
            .get_num_args()
            .is_some_and(|range| range.min_values() == 0);
        let joined = value_names
            .iter()
            .map(|n| format!("<{n}>"))
            .collect::<Vec<_>>()
            .join(" ");
        if optional {
            format!(" [{joined}]")
        } else {
            format!(" {joined}")
        }
    } else {
        String::new()
    };
    let spelled: Vec<String> = names.iter().map(|n| format!("`{n}{value}`")).collect();
    spelled.join(", ")
}

/// `` `<FILE>...` ``: a positional argument as the usage line writes it.
fn positional_name(arg: &Arg) -> String {
    let name = arg
        .get_value_names()
        .and_then(|v| v.first().map(|n| n.to_string()))
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let many = arg
        .get_num_args()
        .is_some_and(|range| range.max_values() > 1);
    let dots = if many { "..." } else { "" };
    if arg.is_required_set() {
        format!("`<{name}>{dots}`")
    } else {
        format!("`[{name}]{dots}`")
    }
}

/// The command's long description, else its short one.
fn about(cmd: &Command) -> String {
    cmd.get_long_about()
        .or(cmd.get_about())
        .map(|t| sentence(t.to_string().trim()))
        .unwrap_or_default()
}

/// The text with a final period: clap drops the period of a one-paragraph
/// doc comment.
fn sentence(text: &str) -> String {
    if text.is_empty() || text.ends_with(['.', '!', '?', ':']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// GitHub's anchor of a heading: lower case, spaces to `-`, punctuation
/// other than `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// A help text spanning several lines, indented to stay in its list item.
fn indent_continuation(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n  ")
        .replace("\n  \n", "\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-written expectations for the helpers on a small command, not
    /// polyfold's (whose page the snapshot test compares).
    #[test]
    fn helpers_print_what_clap_declares() {
        let cmd = Command::new("t")
            .arg(
                Arg::new("files")
                    .value_name("FILE")
                    .num_args(1..)
                    .required(true),
            )
            .arg(
                Arg::new("define")
                    .short('D')
                    .value_name("NAME")
                    .action(ArgAction::Append),
            )
            .arg(
                Arg::new("quiet")
                    .short('q')
                    .long("quiet")
                    .action(ArgAction::SetTrue),
            )
            .arg(
                Arg::new("scale")
                    .long("scale")
                    .value_name("F")
                    .num_args(0..=1),
            );
        let args: Vec<&Arg> = cmd.get_arguments().collect();
        assert_eq!(positional_name(args[0]), "`<FILE>...`");
        assert_eq!(option_name(args[1]), "`-D <NAME>`");
        assert_eq!(option_name(args[2]), "`-q`, `--quiet`");
        assert_eq!(option_name(args[3]), "`--scale [<F>]`");
        assert_eq!(anchor("polyfold bench"), "polyfold-bench");
        assert_eq!(indent_continuation("a\nb\n\nc"), "a\n  b\n\n  c");
        assert_eq!(sentence("Print help"), "Print help.");
        assert_eq!(sentence("Review the diff!"), "Review the diff!");
        assert_eq!(sentence(""), "");
    }

    /// Every visible subcommand of polyfold has its section, and the
    /// hidden one has none.
    #[test]
    fn every_visible_subcommand_has_a_section() {
        let text = reference_markdown();
        for name in ["verify", "plot", "bench", "lattice", "smo", "explain"] {
            assert!(
                text.contains(&format!("\n## `polyfold {name}`\n")),
                "{name}"
            );
        }
        assert!(!text.contains("bench-scale-one"));
        assert!(!text.contains("## `polyfold help`"));
        assert!(text.contains("`-i`, `--in-place`"));
        assert!(text.contains("Possible values: `human`"));
    }
}
