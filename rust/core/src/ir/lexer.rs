//! The lexer of the text form: tokens with their line and column. Works on bytes and only
//! ever slices at ASCII boundaries, so any input (even invalid UTF-8 turned lossy) is safe.

use super::Scalar;
use crate::error::{Error, Result};

/// A token; keywords, dtypes and symbols are all `Ident`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Value(u32),
    Int(i128),
    Float(f64),
    Punct(char),
    Arrow,
    Newline,
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Value(v) => format!("`%{v}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Float(x) => format!("`{}`", Scalar::Float(*x)),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Arrow => "`->`".into(),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A cursor over the text's bytes.
pub(super) struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    col: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub(super) fn new(src: &'a [u8]) -> Self {
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
        }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    /// Whether the whole word `word` starts `ahead` bytes on.
    fn at_word(&self, ahead: usize, word: &str) -> bool {
        let start = self.pos + ahead;
        let end = start + word.len();
        self.src.get(start..end) == Some(word.as_bytes())
            && !self
                .src
                .get(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    }

    fn bump(&mut self) {
        self.pos += 1;
        self.col += 1;
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &str {
        let start = self.pos;
        while self.peek_byte(0).is_some_and(&pred) {
            self.bump();
        }
        // Only ASCII bytes are taken, so the slice is valid UTF-8.
        std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("")
    }

    /// The next token and its line and column.
    pub(super) fn next(&mut self) -> Result<(Tok, usize, usize)> {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\r') => self.bump(),
                Some(b'#') => {
                    while self.peek_byte(0).is_some_and(|b| b != b'\n') {
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        let (line, col) = (self.line, self.col);
        let Some(b) = self.peek_byte(0) else {
            return Ok((Tok::Eof, line, col));
        };
        let tok = match b {
            b'\n' => {
                self.pos += 1;
                self.line += 1;
                self.col = 1;
                Tok::Newline
            }
            b'%' => {
                self.bump();
                let digits = self.take_while(|b| b.is_ascii_digit());
                match digits.parse::<u32>() {
                    Ok(v) => Tok::Value(v),
                    Err(_) => {
                        return Err(Error::at(line, col, "expected a value number after `%`"))
                    }
                }
            }
            b'-' if self.peek_byte(1) == Some(b'>') => {
                self.bump();
                self.bump();
                Tok::Arrow
            }
            b'-' if self.peek_byte(1).is_some_and(|b| b.is_ascii_digit())
                || self.at_word(1, "inf") =>
            {
                self.bump();
                match self.number(line, col)? {
                    Tok::Int(i) => Tok::Int(-i),
                    Tok::Float(x) => Tok::Float(-x),
                    _ => return Err(Error::at(line, col, "expected a number after `-`")),
                }
            }
            b'0'..=b'9' => self.number(line, col)?,
            b if b.is_ascii_alphabetic() || b == b'_' => {
                let word = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
                match word {
                    "inf" => Tok::Float(f64::INFINITY),
                    "nan" => Tok::Float(f64::NAN),
                    _ => Tok::Ident(word.to_string()),
                }
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':' | b'=' | b'@' | b'-' | b'+'
            | b'*' => {
                self.bump();
                Tok::Punct(b as char)
            }
            _ => {
                let shown = if b.is_ascii_graphic() {
                    format!("`{}`", b as char)
                } else {
                    format!("byte 0x{b:02x}")
                };
                return Err(Error::at(
                    line,
                    col,
                    format!("unexpected character {shown}"),
                ));
            }
        };
        Ok((tok, line, col))
    }

    /// An unsigned INT or FLOAT (`inf` after a `-` included).
    fn number(&mut self, line: usize, col: usize) -> Result<Tok> {
        if self.peek_byte(0) == Some(b'i') {
            let word = self.take_while(|b| b.is_ascii_alphanumeric());
            return if word == "inf" {
                Ok(Tok::Float(f64::INFINITY))
            } else {
                Err(Error::at(line, col, "expected a number"))
            };
        }
        let start = self.pos;
        self.take_while(|b| b.is_ascii_digit());
        let mut is_float = false;
        if self.peek_byte(0) == Some(b'.') {
            is_float = true;
            self.bump();
            self.take_while(|b| b.is_ascii_digit());
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            is_float = true;
            self.bump();
            if matches!(self.peek_byte(0), Some(b'+' | b'-')) {
                self.bump();
            }
            if self.take_while(|b| b.is_ascii_digit()).is_empty() {
                return Err(Error::at(line, col, "expected digits in the exponent"));
            }
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
        if is_float {
            text.parse::<f64>()
                .map(Tok::Float)
                .map_err(|_| Error::at(line, col, format!("invalid float `{text}`")))
        } else {
            text.parse::<i128>()
                .map(Tok::Int)
                .map_err(|_| Error::at(line, col, format!("integer `{text}` is too large")))
        }
    }
}
