//! [`Tokens`]: a whitespace-separated token stream over a file's text, read `fscanf` style.
//!
//! Every Siconos problem file (`design/SUITES.md`) is a sequence of tokens separated by
//! whitespace: line breaks carry no meaning. The one exception is the CSparse text storage,
//! whose header lines are read whole; [`Tokens::rest_of_line`] serves it.
//!
//! A reader takes exactly what the file's header declares: after the last declared value (and
//! the optional trailing section its format allows), [`Tokens::expect_end`] accepts only the
//! end of the text or a comment that does not start with a number, so a file holding more
//! data than it declares is an error, never a problem read from its first values.
//!
//! Positions are 1-based and count tokens, so an error message such as
//! `lcp.dat: token 17 (M[2,3]): expected a number, found 'x1'` finds the fault in any editor
//! that splits on whitespace; the message also gives the line.

use perp_core::Error;
use std::fmt::Display;
use std::path::{Path, PathBuf};

/// C's `isspace` in the "C" locale: space, `\t`, `\n`, `\v`, `\f`, `\r`.
#[inline]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// A cursor over the whitespace-separated tokens of a text, with typed reads that fail with
/// an [`Error::Parse`] naming the file, the token position, the field and the bad token.
///
/// The total number of tokens is counted once, when the stream is made, so that
/// [`Tokens::remaining`] is exact and O(1): readers compare every size they read against it
/// *before* allocating, so a corrupt size can never trigger a huge allocation.
#[derive(Clone, Debug)]
pub struct Tokens<'a> {
    text: &'a str,
    file: PathBuf,
    /// Byte offset of the next unread byte.
    offset: usize,
    /// Tokens consumed so far (also by [`Tokens::rest_of_line`]).
    consumed: usize,
    /// Tokens in the whole text.
    total: usize,
    /// 1-based line of `offset`.
    line: usize,
    /// 1-based line of the last token consumed (0 before any).
    last_line: usize,
}

impl<'a> Tokens<'a> {
    /// A stream over `text`, which came from `file` (used in error messages only).
    ///
    /// ```
    /// use perp_formats::tokens::Tokens;
    /// use std::path::Path;
    /// let mut ts = Tokens::new("3\n -1.5  2 \n x", Path::new("in.dat"));
    /// assert_eq!(ts.read_usize("n").unwrap(), 3);
    /// assert_eq!(ts.read_f64("q[0]").unwrap(), -1.5);
    /// assert_eq!(ts.read_i64("k").unwrap(), 2);
    /// let e = ts.read_f64("q[2]").unwrap_err();
    /// assert_eq!(e.to_string(), "in.dat: token 4 (q[2]): expected a number, found 'x' (line 3)");
    /// ```
    pub fn new(text: &'a str, file: &Path) -> Tokens<'a> {
        let total = text.split(|c: char| c.is_ascii() && is_space(c as u8)).filter(|t| !t.is_empty()).count();
        Tokens { text, file: file.to_path_buf(), offset: 0, consumed: 0, total, line: 1, last_line: 0 }
    }

    /// The file named in error messages.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// 1-based position of the next token (one past the last token at the end of the text).
    pub fn position(&self) -> usize {
        self.consumed + 1
    }

    /// 1-based position of the last token consumed (0 before any).
    pub fn last_position(&self) -> usize {
        self.consumed
    }

    /// 1-based line of the last token consumed (1 before any).
    pub fn last_line(&self) -> usize {
        self.last_line.max(1)
    }

    /// Number of tokens in the whole text.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Number of tokens not yet consumed.
    pub fn remaining(&self) -> usize {
        self.total - self.consumed
    }

    /// Whether every token has been consumed.
    pub fn at_end(&self) -> bool {
        self.remaining() == 0
    }

    /// Skips whitespace, keeping the line count.
    fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while self.offset < bytes.len() && is_space(bytes[self.offset]) {
            if bytes[self.offset] == b'\n' {
                self.line += 1;
            }
            self.offset += 1;
        }
    }

    /// The next token, or `None` at the end of the text.
    pub fn next_token(&mut self) -> Option<&'a str> {
        self.skip_space();
        let bytes = self.text.as_bytes();
        if self.offset >= bytes.len() {
            return None;
        }
        let start = self.offset;
        while self.offset < bytes.len() && !is_space(bytes[self.offset]) {
            self.offset += 1;
        }
        self.consumed += 1;
        self.last_line = self.line;
        // Token boundaries are ASCII bytes, so the slice is valid UTF-8.
        Some(&self.text[start..self.offset])
    }

    /// The next token without consuming it.
    pub fn peek(&self) -> Option<&'a str> {
        self.clone().next_token()
    }

    /// The rest of the current line (like C's `fgets`: from the cursor to the end of the line,
    /// without the line break and a trailing `\r`), moving the cursor to the start of the next
    /// line; `None` at the end of the text. Tokens on that rest count as consumed.
    ///
    /// ```
    /// use perp_formats::tokens::Tokens;
    /// use std::path::Path;
    /// let mut ts = Tokens::new("2\nCSparse Version 3\n5-by-5, nzmax: 1\n7", Path::new("m.dat"));
    /// assert_eq!(ts.read_usize("origin").unwrap(), 2);
    /// assert_eq!(ts.rest_of_line(), Some(""));
    /// assert_eq!(ts.rest_of_line(), Some("CSparse Version 3"));
    /// assert_eq!(ts.position(), 5);
    /// assert_eq!(ts.rest_of_line(), Some("5-by-5, nzmax: 1"));
    /// assert_eq!(ts.read_usize("x").unwrap(), 7);
    /// assert_eq!(ts.last_position(), 8);
    /// ```
    pub fn rest_of_line(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        if self.offset >= bytes.len() {
            return None;
        }
        let start = self.offset;
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| start + p);
        let line = self.text[start..end].strip_suffix('\r').unwrap_or(&self.text[start..end]);
        let n = line.split(|c: char| c.is_ascii() && is_space(c as u8)).filter(|t| !t.is_empty()).count();
        if n > 0 {
            self.last_line = self.line;
        }
        self.consumed += n;
        self.offset = end;
        if end < bytes.len() {
            self.offset += 1;
            self.line += 1;
        }
        Some(line)
    }

    /// An [`Error::Parse`] about the last token consumed.
    pub fn error(&self, field: impl Display, message: impl Display) -> Error {
        self.error_at(self.last_position().max(1), field, format!("{message} (line {})", self.last_line()))
    }

    /// An [`Error::Parse`] at an explicit token position.
    pub fn error_at(&self, position: usize, field: impl Display, message: impl Display) -> Error {
        Error::Parse {
            file: self.file.clone(),
            position,
            field: field.to_string(),
            message: message.to_string(),
        }
    }

    /// The error for a read past the end: positioned one past the last token.
    fn eof(&self, field: impl Display) -> Error {
        self.error_at(self.position(), field, "file ends early")
    }

    /// The next token, or "file ends early".
    pub fn token(&mut self, field: impl Display) -> Result<&'a str, Error> {
        match self.next_token() {
            Some(t) => Ok(t),
            None => Err(self.eof(field)),
        }
    }

    /// Consumes the next token and checks that it is `literal`.
    pub fn expect(&mut self, literal: &str, field: impl Display) -> Result<(), Error> {
        let t = self.token(&field)?;
        if t == literal {
            Ok(())
        } else {
            Err(self.error(field, format!("expected '{literal}', found '{}'", shorten(t))))
        }
    }

    /// Reads a non-negative integer.
    pub fn read_usize(&mut self, field: impl Display) -> Result<usize, Error> {
        let t = self.token(&field)?;
        t.parse::<usize>().map_err(|_| {
            self.error(field, format!("expected a non-negative integer, found '{}'", shorten(t)))
        })
    }

    /// Reads a signed integer.
    pub fn read_i64(&mut self, field: impl Display) -> Result<i64, Error> {
        let t = self.token(&field)?;
        t.parse::<i64>()
            .map_err(|_| self.error(field, format!("expected an integer, found '{}'", shorten(t))))
    }

    /// Reads a finite real number (`%le` style: `-1.5`, `2e-3`, `7`); NaN and infinities are
    /// errors, since no problem data may hold them.
    pub fn read_f64(&mut self, field: impl Display) -> Result<f64, Error> {
        let t = self.token(&field)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(self.error(field, format!("value '{}' is not finite", shorten(t)))),
            Err(_) => Err(self.error(field, format!("expected a number, found '{}'", shorten(t)))),
        }
    }

    /// Checks that `count` more tokens can still be read (so that a buffer of that size may
    /// be allocated); the error names `field`, the count and what is left.
    /// The error names the last token read (normally the size that asked for `count`).
    pub fn check_available(&self, count: usize, field: impl Display) -> Result<(), Error> {
        if count <= self.remaining() {
            Ok(())
        } else {
            Err(self.error(field, self.shortage(count)))
        }
    }

    /// "needs N more values but only K tokens are left in the file".
    fn shortage(&self, count: usize) -> String {
        match self.remaining() {
            1 => format!("needs {count} more values but only 1 token is left in the file"),
            k => format!("needs {count} more values but only {k} tokens are left in the file"),
        }
    }

    /// 1-based line where the next token starts (the last line at the end of the text).
    pub fn next_line(&self) -> usize {
        let mut t = self.clone();
        t.skip_space();
        t.line
    }

    /// Whether the next token reads as a number (integer or real, NaN and infinities
    /// included: data, never a comment); `false` at the end of the text.
    pub fn next_is_number(&self) -> bool {
        self.peek().is_some_and(|t| t.parse::<f64>().is_ok())
    }

    /// The end of the data: the rest of the text must be empty or a comment whose first token
    /// is not a number (`# from Murty (1988)`, `Example 4.4.7 CPS 2009`: Siconos' test files
    /// keep such notes there). A further number means the file holds more data than its
    /// header declares; the error names the file, the token, its line and `declared` (what the
    /// header declared, ending at the last token read).
    ///
    /// ```
    /// use perp_formats::tokens::Tokens;
    /// use std::path::Path;
    /// let mut ts = Tokens::new("1\n2.5\n# a comment 3", Path::new("v.dat"));
    /// let n = ts.read_usize("n").unwrap();
    /// ts.read_vector(n, "q").unwrap();
    /// ts.expect_end("n = 1: q (length 1)").unwrap();
    /// let mut ts = Tokens::new("1\n2.5 7\n", Path::new("v.dat"));
    /// let n = ts.read_usize("n").unwrap();
    /// ts.read_vector(n, "q").unwrap();
    /// let e = ts.expect_end("n = 1: q (length 1)").unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "v.dat: token 3 (end of data): expected the end of the data after token 2 (line 2) as \
    ///      declared, n = 1: q (length 1); found the number '7' (line 2): the file holds more data \
    ///      than its header declares"
    /// );
    /// ```
    pub fn expect_end(&self, declared: impl Display) -> Result<(), Error> {
        match self.peek() {
            Some(t) if self.next_is_number() => Err(self.error_at(
                self.position(),
                "end of data",
                format!(
                    "expected the end of the data after token {} (line {}) as declared, {declared}; \
                     found the number '{}' (line {}): the file holds more data than its header declares",
                    self.last_position(),
                    self.last_line(),
                    shorten(t),
                    self.next_line()
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Reads `n` finite reals named `name[0]`, `name[1]`, …, after checking that `n` tokens
    /// are left.
    ///
    /// ```
    /// use perp_formats::tokens::Tokens;
    /// use std::path::Path;
    /// let mut ts = Tokens::new("1 2 3", Path::new("v.dat"));
    /// assert_eq!(ts.read_vector(2, "q").unwrap(), vec![1.0, 2.0]);
    /// assert!(ts.read_vector(5, "mu").is_err());
    /// ```
    ///
    /// A shortage is reported at the position where the vector would start.
    pub fn read_vector(&mut self, n: usize, name: &str) -> Result<Vec<f64>, Error> {
        if n > self.remaining() {
            let message = format!("{} (line {})", self.shortage(n), self.next_line());
            return Err(self.error_at(self.position(), format_args!("{name} (length {n})"), message));
        }
        let mut v = Vec::with_capacity(n);
        for i in 0..n {
            v.push(self.read_f64(format_args!("{name}[{i}]"))?);
        }
        Ok(v)
    }
}

/// Reads a file of exactly `n` finite reals separated by whitespace (line breaks carry no
/// meaning; a trailing comment that does not start with a number is allowed): a solver's start
/// as `perp solve --warm` takes it, or as the harvesting example writes it beside a step. The
/// values are named `field[0]`, `field[1]`, … in errors.
///
/// Errors: [`Error::Io`] naming the file when it cannot be read; [`Error::Parse`] naming the
/// file, the token and the field when a value is not a finite number, when the file holds
/// fewer than `n` values, or more.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("perp-vector-file-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("start.warm");
/// std::fs::write(&path, "1e0\n-2.5\n0\n").unwrap();
/// let v = perp_formats::tokens::read_vector_file(&path, 3, "warm start").unwrap();
/// assert_eq!(v, vec![1.0, -2.5, 0.0]);
/// let e = perp_formats::tokens::read_vector_file(&path, 4, "warm start").unwrap_err();
/// assert!(e.to_string().contains("start.warm") && e.to_string().contains("warm start (length 4)"));
/// let e = perp_formats::tokens::read_vector_file(&path, 2, "warm start").unwrap_err();
/// assert!(e.to_string().contains("token 3"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_vector_file(path: &Path, n: usize, field: &str) -> Result<Vec<f64>, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { file: path.to_path_buf(), source })?;
    let text = String::from_utf8_lossy(&bytes);
    let mut ts = Tokens::new(&text, path);
    let v = ts.read_vector(n, field)?;
    if ts.next_is_number() {
        let more = ts.peek().map(shorten).unwrap_or_default();
        return Err(ts.error_at(
            ts.position(),
            "end of data",
            format_args!("{field} needs {n} values; the file holds more, from '{more}' on"),
        ));
    }
    Ok(v)
}

/// A token cut to a readable length for error messages.
pub(crate) fn shorten(t: &str) -> String {
    const MAX: usize = 40;
    if t.chars().count() <= MAX {
        t.to_string()
    } else {
        format!("{}…", t.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> Tokens<'_> {
        Tokens::new(text, Path::new("t.dat"))
    }

    #[test]
    fn positions_and_lines_are_counted_across_line_breaks() {
        let mut t = ts("  a\tb\n\n c \r\n d");
        assert_eq!(t.remaining(), 4);
        assert_eq!(t.next_token(), Some("a"));
        assert_eq!(t.next_token(), Some("b"));
        assert_eq!(t.peek(), Some("c"));
        assert_eq!(t.next_token(), Some("c"));
        assert_eq!((t.last_position(), t.last_line()), (3, 3));
        assert_eq!(t.next_token(), Some("d"));
        assert_eq!((t.last_position(), t.last_line()), (4, 4));
        assert_eq!(t.next_token(), None);
        assert!(t.at_end());
        assert_eq!(t.position(), 5);
    }

    #[test]
    fn typed_reads_name_the_field_and_the_bad_token() {
        let mut t = ts("-3 abc nan 12");
        let e = t.read_usize("n").unwrap_err();
        assert_eq!(e.to_string(), "t.dat: token 1 (n): expected a non-negative integer, found '-3' (line 1)");
        let e = t.read_i64(format_args!("M[{},{}]", 3, 4)).unwrap_err();
        assert_eq!(e.to_string(), "t.dat: token 2 (M[3,4]): expected an integer, found 'abc' (line 1)");
        let e = t.read_f64("q[7]").unwrap_err();
        assert_eq!(e.to_string(), "t.dat: token 3 (q[7]): value 'nan' is not finite (line 1)");
        assert_eq!(t.read_f64("x").unwrap(), 12.0);
        let e = t.read_f64("y").unwrap_err();
        assert_eq!(e.to_string(), "t.dat: token 5 (y): file ends early");
        assert!(matches!(e, Error::Parse { position: 5, .. }));
    }

    #[test]
    fn expect_and_availability() {
        let mut t = ts("col 3 :");
        t.expect("col", "header").unwrap();
        assert!(t.check_available(2, "x").is_ok());
        let e = t.check_available(3, "M (size 3x1)").unwrap_err();
        assert!(e.to_string().contains("needs 3 more values but only 2 tokens are left"), "{e}");
        let e = t.expect(":", "separator").unwrap_err();
        assert!(e.to_string().contains("expected ':', found '3'"), "{e}");
    }

    #[test]
    fn the_end_of_the_data_takes_blank_lines_and_comments_but_no_number() {
        for tail in ["", "\n\n  \t\r\n", "\n# note 1 2 3\n", " Remark 4.1.14 CPS 2009"] {
            let text = format!("1 2{tail}");
            let mut t = Tokens::new(&text, Path::new("t.dat"));
            t.read_vector(2, "q").unwrap();
            t.expect_end("q (length 2)").unwrap_or_else(|e| panic!("{tail:?}: {e}"));
        }
        for (tail, found) in [(" 3", "'3'"), ("\n\n-1e-3 x", "'-1e-3'"), (" nan", "'nan'"), ("\n0", "'0'")] {
            let text = format!("1 2{tail}");
            let mut t = Tokens::new(&text, Path::new("t.dat"));
            t.read_vector(2, "q").unwrap();
            let e = t.expect_end("q (length 2)").unwrap_err().to_string();
            assert!(
                e.starts_with("t.dat: token 3 (end of data): expected the end of the data after token 2"),
                "{e}"
            );
            assert!(
                e.contains("declared, q (length 2)") && e.contains(&format!("found the number {found}")),
                "{e}"
            );
        }
    }

    #[test]
    fn rest_of_line_at_end_of_text_and_long_tokens_are_shortened() {
        let mut t = ts("x");
        assert_eq!(t.rest_of_line(), Some("x"));
        assert_eq!(t.rest_of_line(), None);
        let text = format!("{}x", "1".repeat(100));
        let mut t = Tokens::new(&text, Path::new("t.dat"));
        let e = t.read_f64("v").unwrap_err();
        assert!(e.to_string().contains('…'), "{e}");
    }
}
