//! What polyfold prints on standard error, as data: the front end's
//! diagnostics about a source file and polyfold's own one-line messages
//! (`polyfold: warning: ...`), each with its severity.
//!
//! The driver collects them in [`Messages`]; the binary prints them once,
//! at the edge, with [`Messages::lines`]: `-q` drops the warnings and the
//! notes, and `--message-format` chooses how each is printed (a JSON
//! object per line with `json`). No decision reads the printed text.

use std::fmt;
use std::sync::Arc;

use crate::cli::MessageFormat;
use crate::diag::{self, Diagnostic, Severity};

/// The severity of one of polyfold's own messages: the word printed after
/// `polyfold: `.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A failure of polyfold itself (`polyfold: internal error: ...`).
    InternalError,
    Error,
    Warning,
    Note,
    /// A message without a severity word (`polyfold: FILE would change`);
    /// `"info"` in JSON.
    Info,
}

impl Level {
    /// The word after `polyfold: ` (none for [`Level::Info`]).
    fn word(self) -> Option<&'static str> {
        match self {
            Level::InternalError => Some("internal error"),
            Level::Error => Some("error"),
            Level::Warning => Some("warning"),
            Level::Note => Some("note"),
            Level::Info => None,
        }
    }

    /// The `severity` of its JSON object.
    fn json_word(self) -> &'static str {
        self.word().unwrap_or("info")
    }
}

/// A source file as its diagnostics show it: the name and the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
}

/// One message on standard error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A diagnostic of the front end about `file` (its code fixes its
    /// severity), printed with the source lines it points at.
    Diagnostic {
        file: Arc<SourceFile>,
        diagnostic: Box<Diagnostic>,
    },
    /// One of polyfold's own messages: `polyfold: LEVEL: text`.
    Own { level: Level, text: String },
}

impl Message {
    pub(crate) fn internal_error(text: impl Into<String>) -> Message {
        Message::own(Level::InternalError, text)
    }

    pub fn error(text: impl Into<String>) -> Message {
        Message::own(Level::Error, text)
    }

    pub fn warning(text: impl Into<String>) -> Message {
        Message::own(Level::Warning, text)
    }

    pub fn note(text: impl Into<String>) -> Message {
        Message::own(Level::Note, text)
    }

    pub fn info(text: impl Into<String>) -> Message {
        Message::own(Level::Info, text)
    }

    fn own(level: Level, text: impl Into<String>) -> Message {
        Message::Own {
            level,
            text: text.into(),
        }
    }

    /// Whether `-q` drops it: warnings and notes, of the front end or
    /// polyfold's own.
    fn quiet_drops(&self) -> bool {
        match self {
            Message::Diagnostic { diagnostic, .. } => diagnostic.severity() != Severity::Error,
            Message::Own { level, .. } => matches!(level, Level::Warning | Level::Note),
        }
    }

    /// The text printed for it with `format` (`polyfold: error: ...\n`, a
    /// codespan block, a short line); polyfold's own messages print the
    /// same in every format but JSON (see [`Message::json_lines`]).
    fn text(&self, format: MessageFormat) -> String {
        match self {
            Message::Diagnostic { file, diagnostic } => {
                let one = std::slice::from_ref(diagnostic.as_ref());
                match format {
                    MessageFormat::Human => diag::render(&file.name, &file.text, one),
                    MessageFormat::Short => diag::render_short(&file.name, &file.text, one),
                    MessageFormat::Json => diag::render_json(&file.name, &file.text, one),
                    MessageFormat::Sarif => format!("{}\n", self.sarif()),
                }
            }
            Message::Own { level, text } => match level.word() {
                Some(word) => format!("polyfold: {word}: {text}\n"),
                None => format!("polyfold: {text}\n"),
            },
        }
    }

    /// Its SARIF object: a result for a diagnostic, a tool execution
    /// notification for one of polyfold's own messages (see
    /// [`diag::sarif`]).
    fn sarif(&self) -> serde_json::Value {
        match self {
            Message::Diagnostic { file, diagnostic } => {
                diag::sarif::result(&file.name, &file.text, diagnostic)
            }
            Message::Own { level, text } => {
                let word = match level {
                    Level::InternalError | Level::Error => "error",
                    Level::Warning => "warning",
                    Level::Note => "note",
                    Level::Info => "none",
                };
                diag::sarif::notification(word, text.trim_end())
            }
        }
    }

    /// Its lines with `--message-format json`: a diagnostic's JSON object;
    /// for polyfold's own message, `{"message": ..., "severity": ...}`
    /// (a further line of a text of several lines is an `info` object of
    /// its own, a blank one none).
    fn json_lines(&self, out: &mut Vec<String>) {
        match self {
            Message::Diagnostic { .. } => {
                out.extend(self.text(MessageFormat::Json).lines().map(str::to_string));
            }
            Message::Own { level, text } => {
                let mut lines = text.lines();
                let first = lines.next().unwrap_or_default();
                let object = |severity: &str, message: &str| {
                    serde_json::json!({ "severity": severity, "message": message }).to_string()
                };
                out.push(object(level.json_word(), first));
                for line in lines.filter(|l| !l.trim().is_empty()) {
                    out.push(object("info", line));
                }
            }
        }
    }
}

impl fmt::Display for Message {
    /// The message as `--message-format human` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(MessageFormat::Human))
    }
}

/// The messages of one file, in the order they print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages(Vec<Message>);

impl Messages {
    pub fn new() -> Messages {
        Messages::default()
    }

    pub fn push(&mut self, message: Message) {
        self.0.push(message);
    }

    /// These messages and then `message`.
    pub fn with(mut self, message: Message) -> Messages {
        self.0.push(message);
        self
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Message> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The lines printed on stderr (without their line ends): with
    /// `quiet` (`-q`) no warning and no note; each message as `format`
    /// prints it.
    pub fn lines(&self, format: MessageFormat, quiet: bool) -> Vec<String> {
        let mut out = Vec::new();
        for message in self.0.iter().filter(|m| !(quiet && m.quiet_drops())) {
            if format == MessageFormat::Json {
                message.json_lines(&mut out);
            } else {
                out.extend(message.text(format).lines().map(str::to_string));
            }
        }
        out
    }

    /// For the SARIF log of the run (`--message-format sarif`): the
    /// results (diagnostics) and the tool execution notifications
    /// (polyfold's own messages) of these messages, without the warnings
    /// and notes with `quiet`.
    pub fn sarif(&self, quiet: bool) -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
        let mut results = Vec::new();
        let mut notifications = Vec::new();
        for message in self.0.iter().filter(|m| !(quiet && m.quiet_drops())) {
            match message {
                Message::Diagnostic { .. } => results.push(message.sarif()),
                Message::Own { .. } => notifications.push(message.sarif()),
            }
        }
        (results, notifications)
    }

    /// What is printed on stderr: [`Messages::lines`], each ended by a
    /// newline.
    #[cfg(test)]
    pub(crate) fn render(&self, format: MessageFormat, quiet: bool) -> String {
        end_lines(&self.lines(format, quiet))
    }
}

impl Extend<Message> for Messages {
    fn extend<I: IntoIterator<Item = Message>>(&mut self, messages: I) {
        self.0.extend(messages);
    }
}

impl From<Message> for Messages {
    fn from(message: Message) -> Messages {
        Messages(vec![message])
    }
}

impl fmt::Display for Messages {
    /// Every message as `--message-format human` prints it (no `-q`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for message in &self.0 {
            write!(f, "{message}")?;
        }
        Ok(())
    }
}

/// `lines`, each ended by a newline.
pub fn end_lines(lines: &[String]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    /// A file of two lines with a warning (PF016) on `b[i]` and an error
    /// (PF001) on the whole file.
    fn sample() -> Messages {
        let file = Arc::new(SourceFile {
            name: "k.c".into(),
            text: "int x;\na[b[i]] = 0;\n".into(),
        });
        let warning = Diagnostic::new(Code::QuasiAffine, "quasi", 9..13, "here");
        let error = Diagnostic::new(Code::SyntaxError, "does not parse", 0..0, "");
        let mut m = Messages::new();
        m.push(Message::Diagnostic {
            file: file.clone(),
            diagnostic: Box::new(warning),
        });
        m.push(Message::Diagnostic {
            file,
            diagnostic: Box::new(error),
        });
        m.extend([
            Message::warning("k.c: `t` in f keeps its layout"),
            Message::note("k.c: no SCoP found; nothing to do"),
            Message::error("cannot read n.c: gone"),
            Message::internal_error("k.c: broken"),
            Message::info("k.c would change"),
        ]);
        m
    }

    #[test]
    fn own_messages_print_with_their_severity_word() {
        let m = sample();
        let text = m.render(MessageFormat::Short, false);
        assert_eq!(
            text,
            "k.c:2:3: warning: quasi [PF016]\n\
             k.c: error: does not parse [PF001]\n\
             polyfold: warning: k.c: `t` in f keeps its layout\n\
             polyfold: note: k.c: no SCoP found; nothing to do\n\
             polyfold: error: cannot read n.c: gone\n\
             polyfold: internal error: k.c: broken\n\
             polyfold: k.c would change\n"
        );
        // Without -q, the human text is what Display prints.
        assert_eq!(m.render(MessageFormat::Human, false), m.to_string());
    }

    #[test]
    fn quiet_drops_warnings_and_notes_but_not_errors() {
        let m = sample();
        assert_eq!(
            m.render(MessageFormat::Short, true),
            "k.c: error: does not parse [PF001]\n\
             polyfold: error: cannot read n.c: gone\n\
             polyfold: internal error: k.c: broken\n\
             polyfold: k.c would change\n"
        );
        let human = m.render(MessageFormat::Human, true);
        assert!(
            human.starts_with("error[PF001]: does not parse\n"),
            "{human}"
        );
        assert!(!human.contains("warning"), "{human}");
    }

    #[test]
    fn json_objects_carry_the_severity_word_or_info() {
        let lines = sample().lines(MessageFormat::Json, false);
        assert_eq!(lines.len(), 7);
        assert!(
            lines[0].starts_with(r#"{"code":"PF016","file":"k.c","#),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[2..],
            [
                r#"{"message":"k.c: `t` in f keeps its layout","severity":"warning"}"#,
                r#"{"message":"k.c: no SCoP found; nothing to do","severity":"note"}"#,
                r#"{"message":"cannot read n.c: gone","severity":"error"}"#,
                r#"{"message":"k.c: broken","severity":"internal error"}"#,
                r#"{"message":"k.c would change","severity":"info"}"#,
            ]
        );
        let quiet = sample().lines(MessageFormat::Json, true);
        assert_eq!(quiet.len(), 4);
        assert!(quiet[0].contains(r#""severity":"error""#), "{}", quiet[0]);
        assert_eq!(quiet[1..], lines[4..]);
    }

    #[test]
    fn further_lines_of_a_message_are_info_lines_in_json() {
        let m = Messages::from(Message::internal_error("first\n\nsecond\n"));
        assert_eq!(
            m.render(MessageFormat::Human, false),
            "polyfold: internal error: first\n\nsecond\n\n"
        );
        assert_eq!(
            m.lines(MessageFormat::Json, false),
            [
                r#"{"message":"first","severity":"internal error"}"#,
                r#"{"message":"second","severity":"info"}"#,
            ]
        );
        let empty = Messages::from(Message::error(""));
        assert_eq!(
            empty.lines(MessageFormat::Json, false),
            [r#"{"message":"","severity":"error"}"#]
        );
    }
}
