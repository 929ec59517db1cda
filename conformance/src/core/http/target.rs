//! The endpoint `--url` names: `http://HOST:PORT/PATH`, parsed strictly (plain HTTP only; the
//! runner speaks to the endpoint itself, so TLS and proxies are out of its scope).

/// A URL the runner cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// Not `http://…`.
    #[error("{0:?} is not an http:// URL (the runner speaks plain HTTP to the MCP endpoint)")]
    Scheme(String),
    /// No host, a bad port, or userinfo/query/fragment the runner would not send.
    #[error("{url:?} is not http://HOST[:PORT]/PATH: {why}")]
    Shape {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// The MCP endpoint: where to connect and what to ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    host: String,
    port: u16,
    path: String,
}

impl HttpTarget {
    /// Parses `http://HOST[:PORT][/PATH]` (port 80 when none; path `/` when none; an IPv6
    /// host in brackets).
    pub fn parse(url: &str) -> Result<Self, TargetError> {
        let shape = |why| TargetError::Shape {
            url: url.to_owned(),
            why,
        };
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| TargetError::Scheme(url.to_owned()))?;
        if rest.contains(['#', '?']) {
            return Err(shape("no query or fragment"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(shape("no user information"));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or_else(|| shape("unclosed '['"))?;
            (format!("[{h}]"), after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), Some(p)),
                None => (authority.to_owned(), None),
            }
        };
        if host.is_empty() || host == "[]" {
            return Err(shape("no host"));
        }
        let port = match port {
            None => 80,
            Some(p) => p.parse().map_err(|_| shape("the port is not a number"))?,
        };
        Ok(Self {
            host,
            port,
            path: path.to_owned(),
        })
    }

    /// `host:port`, as connected to and sent in `Host`.
    #[must_use]
    pub fn authority(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// The host alone (brackets kept for IPv6).
    #[must_use]
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The path of the endpoint (`/mcp`).
    #[must_use]
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The URL again, normalised (`http://host:port/path`).
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}{}", self.authority(), self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_strictly() {
        let t = HttpTarget::parse("http://127.0.0.1:8080/mcp").expect("parses");
        assert_eq!(
            (t.authority().as_str(), t.path()),
            ("127.0.0.1:8080", "/mcp")
        );
        let t = HttpTarget::parse("http://[::1]:9/").expect("parses");
        assert_eq!(t.authority(), "[::1]:9");
        assert_eq!(
            HttpTarget::parse("http://localhost").expect("parses").url(),
            "http://localhost:80/"
        );
        for bad in [
            "https://x/mcp",
            "http://:80/",
            "http://x:port/",
            "http://u@x/",
            "http://x/?a",
            "x/mcp",
        ] {
            assert!(HttpTarget::parse(bad).is_err(), "{bad}");
        }
    }
}
