//! The detail JavaScriptCore's `JSON.parse` gives for invalid text, which claude prints after
//! `--json-schema is not valid JSON: JSON Parse error: `. Reproduces the messages observed from
//! the real CLI for the usual mistakes (unclosed object or array, missing colon, trailing comma,
//! bare identifiers, bad escapes, trailing text); an input outside those shapes gets JSC's
//! generic `Unable to parse JSON string`.

/// Identifiers and stray punctuation are tokens, not lexer errors: JSC only complains about them
/// where a value is expected (`{bad` is "Expected '}'", `bad` alone is "Unexpected identifier").
#[derive(Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Colon,
    Comma,
    Str,
    Num,
    Lit,
    End,
}

struct Lexer<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

type Res<T> = Result<T, String>;

impl Lexer<'_> {
    fn next(&mut self) -> Res<Tok> {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
        let Some(&c) = self.s.get(self.i) else {
            return Ok(Tok::End);
        };
        let single = |t| Ok::<Tok, String>(t);
        self.i += 1;
        match c {
            b'{' => single(Tok::LBrace),
            b'}' => single(Tok::RBrace),
            b'[' => single(Tok::LBracket),
            b']' => single(Tok::RBracket),
            b':' => single(Tok::Colon),
            b',' => single(Tok::Comma),
            b'"' => self.string(),
            b'\'' => Err("Single quotes (') are not allowed in JSON".to_owned()),
            b'-' | b'0'..=b'9' => self.number(c),
            b'.' | b'=' | b';' | b'(' | b')' => Ok(Tok::Punct(c as char)),
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let start = self.i - 1;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric()
                        || matches!(self.s[self.i], b'_' | b'$'))
                {
                    self.i += 1;
                }
                let word = &self.text[start..self.i];
                if matches!(word, "true" | "false" | "null") {
                    Ok(Tok::Lit)
                } else {
                    Ok(Tok::Ident(word.to_owned()))
                }
            }
            _ => {
                let ch = self.text[self.i - 1..].chars().next().unwrap_or('?');
                Err(format!("Unrecognized token '{ch}'"))
            }
        }
    }

    fn string(&mut self) -> Res<Tok> {
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return Ok(Tok::Str),
                b'\\' => match self.s.get(self.i) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                    Some(b'u') => {
                        let hex = self.s.get(self.i + 1..self.i + 5);
                        if hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                            self.i += 5;
                        } else {
                            let rest: String = self.text[self.i - 1..].chars().take(6).collect();
                            return Err(format!("\"{rest}\" is not a valid unicode escape"));
                        }
                    }
                    Some(_) => {
                        let ch = self.text[self.i..].chars().next().unwrap_or('?');
                        return Err(format!("Invalid escape character {ch}"));
                    }
                    None => break,
                },
                _ => {}
            }
        }
        Err("Unterminated string".to_owned())
    }

    fn number(&mut self, first: u8) -> Res<Tok> {
        let digits = |l: &mut Self| {
            let start = l.i;
            while l.s.get(l.i).is_some_and(u8::is_ascii_digit) {
                l.i += 1;
            }
            l.i - start
        };
        match first {
            b'-' if digits(self) == 0 => return Err("Invalid number".to_owned()),
            // A leading zero ends the integer part: `01` lexes as `0` then `1`.
            b'-' | b'0' => {}
            _ => {
                digits(self);
            }
        }
        if self.s.get(self.i) == Some(&b'.')
            && self.s.get(self.i + 1).is_some_and(u8::is_ascii_digit)
        {
            self.i += 1;
            digits(self);
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                self.i = save;
            }
        }
        Ok(Tok::Num)
    }
}

/// `Ok(())` when `text` is valid JSON, else JSC's message.
pub fn check(text: &str) -> Result<(), String> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let first = lx.next()?;
    value(&mut lx, first)?;
    match lx.next() {
        Ok(Tok::End) => Ok(()),
        _ => Err("Unable to parse JSON string".to_owned()),
    }
}

fn value(lx: &mut Lexer<'_>, tok: Tok) -> Res<()> {
    match tok {
        Tok::Str | Tok::Num | Tok::Lit => Ok(()),
        Tok::LBrace => object(lx),
        Tok::LBracket => array(lx),
        Tok::End => Err("Unexpected EOF".to_owned()),
        Tok::RBrace => Err("Unexpected token '}'".to_owned()),
        Tok::RBracket => Err("Unexpected token ']'".to_owned()),
        Tok::Colon => Err("Unexpected token ':'".to_owned()),
        Tok::Comma => Err("Unexpected token ','".to_owned()),
        Tok::Punct(c) => Err(format!("Unexpected token '{c}'")),
        Tok::Ident(word) => Err(format!("Unexpected identifier \"{word}\"")),
    }
}

fn object(lx: &mut Lexer<'_>) -> Res<()> {
    let mut tok = lx.next()?;
    if tok == Tok::RBrace {
        return Ok(());
    }
    let mut first = true;
    loop {
        if tok != Tok::Str {
            return Err(if first {
                "Expected '}'"
            } else {
                "Property name must be a string literal"
            }
            .to_owned());
        }
        first = false;
        if lx.next()? != Tok::Colon {
            return Err("Expected ':' before value in object property definition".to_owned());
        }
        let v = lx.next()?;
        value(lx, v)?;
        match lx.next()? {
            Tok::Comma => tok = lx.next()?,
            Tok::RBrace => return Ok(()),
            _ => return Err("Expected '}'".to_owned()),
        }
    }
}

fn array(lx: &mut Lexer<'_>) -> Res<()> {
    let mut tok = lx.next()?;
    if tok == Tok::RBracket {
        return Ok(());
    }
    loop {
        value(lx, tok)?;
        match lx.next()? {
            Tok::Comma => {
                tok = lx.next()?;
                if tok == Tok::RBracket {
                    return Err("Unexpected comma at the end of array expression".to_owned());
                }
            }
            Tok::RBracket => return Ok(()),
            _ => return Err("Expected ']'".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    /// Inputs and the messages the real claude 2.1.328 printed for them.
    #[test]
    fn messages_match_the_probed_cli() {
        let cases = [
            ("{bad", "Expected '}'"),
            ("x", "Unexpected identifier \"x\""),
            ("[1", "Expected ']'"),
            ("{\"a\":", "Unexpected EOF"),
            (
                "{\"a\" 1}",
                "Expected ':' before value in object property definition",
            ),
            ("{\"a\":1}x", "Unable to parse JSON string"),
            ("@", "Unrecognized token '@'"),
            ("{\"a\":tru}", "Unexpected identifier \"tru\""),
            ("{\"a\":\"x", "Unterminated string"),
            ("{\"a\":1,}", "Property name must be a string literal"),
            ("[1,]", "Unexpected comma at the end of array expression"),
            ("{\"a\":01}", "Expected '}'"),
            ("{\"a\":-}", "Invalid number"),
            ("{,}", "Expected '}'"),
            ("}", "Unexpected token '}'"),
            ("[1 2]", "Expected ']'"),
            ("{'a':1}", "Single quotes (') are not allowed in JSON"),
            ("{\"a\":{}", "Expected '}'"),
            ("{\"a\":1e}", "Expected '}'"),
            ("{\"a\":.5}", "Unexpected token '.'"),
            (
                "{\"a\":\"\\u12\"}",
                "\"\\u12\"}\" is not a valid unicode escape",
            ),
            ("  ", "Unexpected EOF"),
            ("{\"a\":1}}", "Unable to parse JSON string"),
            ("{\"a\" :: 1}", "Unexpected token ':'"),
            (
                "{\"a\"}",
                "Expected ':' before value in object property definition",
            ),
            ("[", "Unexpected EOF"),
            ("{\"a\":+1}", "Unrecognized token '+'"),
            ("{\"a\":\"\\q\"}", "Invalid escape character q"),
            ("abc def", "Unexpected identifier \"abc\""),
        ];
        for (input, want) in cases {
            assert_eq!(check(input), Err(want.to_owned()), "input {input:?}");
        }
        assert_eq!(check("{\"a\": [1, 2.5e3, true, null, \"x\\n\"]}"), Ok(()));
    }
}
