//! How fast a voice of the room was, from its replies' recorded latency:
//! what a facilitator compares between a local and a hosted model.

use super::Latency;

/// A voice's replies in figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Figures {
    /// Replies with a recorded latency.
    pub replies: usize,
    /// The median wait for the first token, ms.
    pub first_token_ms: u64,
    /// Tokens a second once writing, over all the replies long enough to
    /// say (tokens after the first over the time after it); None: none was.
    pub tokens_per_second: Option<f64>,
}

/// The figures of these replies; None when there are none.
pub(crate) fn figures<'a>(latencies: impl IntoIterator<Item = &'a Latency>) -> Option<Figures> {
    let all: Vec<&Latency> = latencies.into_iter().collect();
    let mut firsts: Vec<u64> = all.iter().map(|l| l.first_token_ms).collect();
    firsts.sort_unstable();
    let n = firsts.len();
    let median = match n {
        0 => return None,
        _ if n % 2 == 1 => firsts[n / 2],
        // Sorted: the midpoint without a sum that could overflow.
        _ => firsts[n / 2 - 1] + (firsts[n / 2] - firsts[n / 2 - 1]) / 2,
    };
    let writing: Vec<&&Latency> = all.iter().filter(|l| l.tokens_per_second().is_some()).collect();
    // Figures read from a file may be anything: sums that cannot overflow.
    let tokens: u128 = writing.iter().map(|l| u128::from(l.tokens - 1)).sum();
    let ms: u128 = writing.iter().map(|l| u128::from(l.total_ms - l.first_token_ms)).sum();
    Some(Figures {
        replies: n,
        first_token_ms: median,
        tokens_per_second: (ms > 0).then(|| tokens as f64 * 1000.0 / ms as f64),
    })
}

impl Figures {
    /// `1.2 s · 40 tok/s`: the median first token, the writing speed.
    pub(crate) fn summary(&self) -> String {
        speed(self.first_token_ms, self.tokens_per_second)
    }
}

/// `1.2 s · 40 tok/s`: a first token's wait and a writing speed, as a
/// reply's tag and a voice's figures show them.
pub(crate) fn speed(first_token_ms: u64, tokens_per_second: Option<f64>) -> String {
    let first = first_token_ms as f64 / 1000.0;
    match tokens_per_second {
        Some(r) => format!("{first:.1} s · {r:.0} tok/s"),
        None => format!("{first:.1} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(first_token_ms: u64, total_ms: u64, tokens: u32) -> Latency {
        Latency {
            first_token_ms,
            total_ms,
            tokens,
        }
    }

    #[test]
    fn the_first_token_is_the_median_and_the_speed_weighs_every_reply_by_its_length() {
        assert_eq!(figures(&[]), None);
        let one = figures(&[l(1200, 3200, 81)]).unwrap();
        assert_eq!((one.replies, one.first_token_ms), (1, 1200));
        assert_eq!(one.summary(), "1.2 s · 40 tok/s");
        // A slow outlier moves a median less than a mean: 2 s, not 5 s.
        let three = figures(&[l(1000, 2000, 11), l(2000, 4000, 31), l(12000, 13000, 1)]).unwrap();
        assert_eq!(three.first_token_ms, 2000);
        // 10 + 30 tokens over 1 s + 2 s; the one-token reply says nothing of speed.
        assert_eq!(three.tokens_per_second.map(f64::round), Some(13.0));
        assert_eq!(figures(&[l(1000, 1000, 1), l(3000, 3000, 1)]).unwrap().summary(), "2.0 s");
        // A hand-edited file's figures overflow nothing.
        let huge = figures(&[l(u64::MAX, u64::MAX, u32::MAX), l(u64::MAX - 2, u64::MAX, u32::MAX)]).unwrap();
        assert_eq!(huge.first_token_ms, u64::MAX - 1);
    }
}
