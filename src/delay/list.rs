//! Lists of delay models as `--delay` takes them: comma-separated, where the models with
//! several parameters (`normal:50us,10us`) keep their own commas.

use super::models::ModelEntry;
use super::{DelayModel, DelayModelError};

/// Parses `50us,100us` or `normal:50us,10us,exp:20us` into models, in order.
///
/// Errors: the [`DelayModelError`] of the first item that does not parse.
pub fn parse_delay_list(text: &str) -> Result<Vec<DelayModel>, DelayModelError> {
    split_items(text).iter().map(|item| item.parse()).collect()
}

/// Splits a `--delay` list into specs. A `NAME:` item takes as many following pieces as its
/// model's example has commas ([`ModelEntry::example`]), as long as they do not start a spec
/// of their own (contain no `:`).
pub(crate) fn split_items(text: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    let mut pieces = text.split(',').peekable();
    while let Some(piece) = pieces.next() {
        let commas = piece
            .split_once(':')
            .and_then(|(n, _)| ModelEntry::find(&n.trim().to_ascii_lowercase()))
            .map_or(0, ModelEntry::commas);
        let mut item = piece.to_string();
        for _ in 0..commas {
            match pieces.next_if(|next| !next.contains(':')) {
                Some(next) => {
                    item.push(',');
                    item.push_str(next);
                }
                None => break,
            }
        }
        items.push(item);
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_parameter_models_keep_their_comma() {
        let list = parse_delay_list("50us,normal:50us,10us,exp:20us,gamma:2,10us").unwrap();
        let labels: Vec<String> = list.iter().map(|m| m.label()).collect();
        assert_eq!(labels.len(), 4, "{labels:?}");
        assert!(list[0].is_fixed());
        assert!((list[1].mean_s() - 50e-6).abs() < 2e-6);
        assert!((list[2].mean_s() - 20e-6).abs() < 1e-12);
        assert!((list[3].mean_s() - 20e-6).abs() < 1e-12);
    }

    #[test]
    fn bad_items_are_errors() {
        assert!(parse_delay_list("50us,50").is_err());
        assert!(parse_delay_list("normal:50us").is_err());
    }

    #[test]
    fn a_following_spec_is_not_taken_as_an_argument() {
        assert_eq!(
            split_items("normal:50us,exp:20us,1ms"),
            ["normal:50us", "exp:20us", "1ms"]
        );
        assert_eq!(split_items("Gamma:2,10us"), ["Gamma:2,10us"]);
    }
}
