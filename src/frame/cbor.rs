//! CBOR errors in words: ciborium's own `Display` prints Rust debug values
//! (`Semantic(None, "...")`, `Io(Error { kind: UnexpectedEof })`), which say nothing to a user.

/// A CBOR decoding error in words, with the I/O error's own message when there is one.
pub fn de_error<T: std::fmt::Display>(e: &ciborium::de::Error<T>) -> String {
    use ciborium::de::Error;
    match e {
        Error::Io(io) => format!("the CBOR data ends early or cannot be read ({io})"),
        Error::Syntax(at) => format!("CBOR syntax error at payload byte {at}"),
        Error::Semantic(Some(at), msg) => format!("{msg} at payload byte {at}"),
        Error::Semantic(None, msg) => msg.clone(),
        Error::RecursionLimitExceeded => "CBOR nested too deeply".into(),
    }
}

/// A CBOR encoding error in words.
pub fn ser_error<T: std::fmt::Display>(e: &ciborium::ser::Error<T>) -> String {
    use ciborium::ser::Error;
    match e {
        Error::Io(io) => format!("write error: {io}"),
        Error::Value(msg) => msg.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_words_not_debug_values() {
        let short: Result<crate::records::Item, _> = ciborium::from_reader(&[0xa1u8][..]);
        let text = de_error(&short.unwrap_err());
        assert!(!text.contains("Io(") && !text.contains("kind:"), "{text}");
        let wrong: Result<crate::records::Item, _> = ciborium::from_reader(&[0x01u8][..]);
        let text = de_error(&wrong.unwrap_err());
        assert!(!text.contains("Semantic(") && !text.is_empty(), "{text}");
    }
}
