//! Who streams at once in a round, by the configuration and the servers.

use super::Room;
use crate::config::RoundMode;
use crate::roster::agents::Agent;

/// A speaker's server as the round's groups weigh it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Lane {
    /// Which server: its address's host and port (`server_of`: two
    /// endpoints at one address are one server and, taking one request at
    /// a time, one queue), else its endpoint's name.
    pub(super) server: String,
    /// Whether it runs several requests at once (`servers::runs_together`).
    pub(super) together: bool,
    /// Whether its endpoint says so (`parallel_requests`), not guessed
    /// from the address.
    pub(super) said: bool,
}

/// The server an address names: its host in lower case (any loopback
/// name, `localhost`, `127.x`, `::1`, `0.0.0.0`, one) and its port (the scheme's
/// when none is written), without the path.
pub(super) fn server_of(url: &str) -> String {
    use crate::llm::discovery::{host_and_port, is_loopback};
    let (host, port) = host_and_port(url);
    let host = if is_loopback(&host) { "loopback" } else { &host };
    let https = url.trim().get(..8).is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    format!("{host}:{}", port.unwrap_or(if https { "443" } else { "80" }))
}

/// Whether two speakers' replies would wait for each other in one
/// server's queue: the same server, and it takes one request at a time.
fn queue_behind(a: &Lane, b: &Lane) -> bool {
    a.server == b.server && !(a.together && b.together)
}

/// Whether the room's speakers use more than one server.
pub(super) fn several_servers(lanes: &[Lane]) -> bool {
    lanes.iter().any(|l| l.server != lanes[0].server)
}

/// The round mode: the config's, else by the servers. A local server
/// (loopback, private network, Ollama's port) mostly answers one request at
/// a time (llama.cpp's Python server, Ollama with one slot): replies sent
/// at once wait in its queue, so a round takes as long as in sequence and
/// the later speakers lose the replies before them — sequential. A hosted
/// API (and the rehearsal) answers them together: hybrid, two replies'
/// time for three speakers, each answering the first. A room on several
/// servers is hybrid too: `groups` keeps the speakers of a server that
/// takes one request at a time in turn, and only replies on different
/// servers (or on one that runs requests together) stream at once.
/// `together`: every server the room's speakers use runs requests together.
pub(super) fn round_mode(configured: Option<RoundMode>, together: bool, several: bool, rehearsal: bool) -> RoundMode {
    match configured {
        Some(m) => m,
        None if !rehearsal && !together && !several => RoundMode::Sequential,
        None => RoundMode::Hybrid,
    }
}

/// The picked speakers (by their place in the picked order, each on its
/// `lanes` entry) in the groups that stream at once, one group after
/// another. In a room of one server (`several` false) by the mode alone,
/// as the mode says (`RoundMode::groups`). In a room of several, two
/// speakers whose replies would queue on one server (`queue_behind`) never
/// share a group: each speaker joins the earliest group it may (hybrid:
/// after the first speaker's own), else opens one after the others. So a
/// group holds speakers on different servers, the first speaker stays
/// first, and the speakers of one queueing server keep their picked order,
/// each seeing the replies before it; the groups, read in turn, are the
/// speaking order (what the round announces and records).
pub(super) fn groups(mode: RoundMode, lanes: &[Lane], several: bool) -> Vec<Vec<usize>> {
    if !several || mode == RoundMode::Sequential {
        return mode.groups(lanes.len()).into_iter().map(Iterator::collect).collect();
    }
    // A server runs requests together only if every endpoint on it that
    // says anything says so; a guess from the address counts when none does.
    let lanes: Vec<Lane> = lanes
        .iter()
        .map(|l| {
            let on_it = || lanes.iter().filter(|m| m.server == l.server);
            let said = on_it().any(|m| m.said);
            Lane {
                server: l.server.clone(),
                together: on_it().filter(|m| m.said || !said).all(|m| m.together),
                said,
            }
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Hybrid: the first speaker alone, and nobody joins its group.
    let first = usize::from(mode == RoundMode::Hybrid).min(lanes.len());
    if first == 1 {
        groups.push(vec![0]);
    }
    for (i, lane) in lanes.iter().enumerate().skip(first) {
        let fits = |g: &Vec<usize>| g.iter().all(|&j| !queue_behind(lane, &lanes[j]));
        match groups.iter().skip(first).position(fits) {
            Some(g) => groups[first + g].push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

impl Room {
    /// An agent's server as the round's groups weigh it.
    pub(super) fn lane(&self, agent: &Agent) -> Lane {
        let endpoint = agent.endpoint.as_deref();
        let (name, setting, provider) = match self.server(endpoint) {
            Some(s) => (
                s.name.as_str(),
                self.endpoint_def(Some(&s.name)).and_then(|e| e.parallel_requests),
                &s.provider,
            ),
            None => (crate::config::DEFAULT_ENDPOINT, self.cfg.llm.parallel_requests, &self.provider),
        };
        let url = provider.info().base_url;
        Lane {
            together: super::servers::runs_together(setting, url.as_deref()),
            said: setting.is_some(),
            server: url.map_or_else(|| name.to_string(), |u| server_of(&u)),
        }
    }

    /// The room's round mode (`round_mode`), from every server its agents use.
    pub(super) fn decide_round_mode(&self, rehearsal: bool) -> RoundMode {
        let lanes: Vec<Lane> = self.agents.iter().map(|a| self.lane(a)).collect();
        let together = lanes.iter().all(|l| l.together);
        round_mode(self.cfg.party.round_mode, together, several_servers(&lanes), rehearsal)
    }

    /// The picked speakers (indices into `agents`) in the groups that
    /// stream at once (`groups`), one group after another.
    pub(super) fn round_groups(&self, picked: &[usize]) -> Vec<Vec<usize>> {
        let lanes: Vec<Lane> = picked.iter().map(|&i| self.lane(&self.agents[i])).collect();
        let all: Vec<Lane> = self.agents.iter().map(|a| self.lane(a)).collect();
        let groups = groups(self.round_mode, &lanes, several_servers(&all));
        groups.into_iter().map(|g| g.into_iter().map(|s| picked[s]).collect()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::machine::servers::runs_together;

    fn on(server: &str, together: bool) -> Lane {
        Lane {
            server: server.into(),
            together,
            said: true,
        }
    }

    #[test]
    fn one_server_is_one_however_its_address_is_written() {
        let one = [
            "http://localhost:11434/v1",
            "http://127.0.0.1:11434/v1/",
            "HTTP://[::1]:11434",
            "http://127.0.1.1:11434/api",
            "http://0.0.0.0:11434",
            "http://[::ffff:127.0.0.1]:11434",
            "http://[0:0:0:0:0:0:0:1]:11434",
        ];
        assert!(one.iter().all(|u| server_of(u) == "loopback:11434"), "{:?}", one.map(server_of));
        assert_eq!(server_of("https://API.OpenAI.com/v1"), server_of("https://api.openai.com:443/v2"));
        assert_eq!(server_of("https://user:pw@gpu-box.lan:8000/v1"), "gpu-box.lan:8000");
        assert_ne!(server_of("http://127.0.0.1:8080/v1"), server_of("http://127.0.0.1:8081/v1"));
        assert_ne!(server_of("http://gpu-box.lan:8000/v1"), server_of("http://other-box.lan:8000/v1"));
    }

    /// Two endpoints at one address, one saying it runs requests together
    /// and one not: the server takes them in turn.
    #[test]
    fn a_server_runs_requests_together_only_if_every_endpoint_on_it_says_so() {
        let lanes = [on("hosted", true), on("x", true), on("x", false), on("x", true)];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), vec![vec![0], vec![1], vec![2], vec![3]]);
        let lanes = [on("hosted", true), on("x", true), on("x", true)];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), vec![vec![0], vec![1, 2]]);
        // A guess from the address (the default endpoint's unset setting on
        // a loopback address) does not overrule an endpoint that says.
        let guessed = Lane {
            said: false,
            ..on("x", false)
        };
        let lanes = [on("hosted", true), on("x", true), guessed];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), vec![vec![0], vec![1, 2]]);
    }

    #[test]
    fn a_local_server_gets_replies_in_turn_a_hosted_one_at_once_unless_the_config_says() {
        let local = runs_together(None, Some("http://127.0.0.1:8080/v1"));
        let hosted = runs_together(None, Some("https://api.openai.com/v1"));
        assert_eq!(round_mode(None, local, false, false), RoundMode::Sequential);
        let ollama = runs_together(None, Some("http://localhost:11434/v1"));
        assert_eq!(round_mode(None, ollama, false, false), RoundMode::Sequential);
        assert_eq!(round_mode(None, hosted, false, false), RoundMode::Hybrid);
        assert_eq!(round_mode(None, true, false, true), RoundMode::Hybrid, "the rehearsal");
        assert_eq!(round_mode(Some(RoundMode::Parallel), local, false, false), RoundMode::Parallel);
        assert_eq!(round_mode(Some(RoundMode::Sequential), hosted, false, false), RoundMode::Sequential);
        assert_eq!(
            round_mode(None, false, true, false),
            RoundMode::Hybrid,
            "several servers: hybrid, each queueing server's speakers in turn"
        );
        assert_eq!(round_mode(Some(RoundMode::Sequential), false, true, false), RoundMode::Sequential);
    }

    #[test]
    fn a_room_of_one_server_groups_by_the_mode_alone() {
        let lanes = [on("a", false), on("a", false), on("a", false)];
        assert!(!several_servers(&lanes));
        assert_eq!(groups(RoundMode::Hybrid, &lanes, false), [vec![0], vec![1, 2]]);
        assert_eq!(groups(RoundMode::Parallel, &lanes, false), [vec![0, 1, 2]]);
        assert_eq!(groups(RoundMode::Sequential, &lanes, false), [vec![0], vec![1], vec![2]]);
        assert!(groups(RoundMode::Hybrid, &[], false).is_empty());
    }

    #[test]
    fn speakers_on_different_servers_stream_at_once_and_one_queueing_server_takes_them_in_turn() {
        let (local, other, hosted) = (|| on("local", false), || on("other", false), || on("hosted", true));
        assert!(several_servers(&[local(), hosted()]));
        // Hybrid: the first alone; the next two on one queueing server
        // never together, the third server's speaker beside the first of them.
        let lanes = [hosted(), local(), local(), other()];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), [vec![0], vec![1, 3], vec![2]]);
        // A server that runs requests together takes its speakers at once.
        let lanes = [local(), hosted(), hosted(), local()];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), [vec![0], vec![1, 2, 3]]);
        // Parallel: the first speaker's group is open to the others.
        let lanes = [local(), other(), local(), other()];
        assert_eq!(groups(RoundMode::Parallel, &lanes, true), [vec![0, 1], vec![2, 3]]);
        // Nobody joins the first speaker in hybrid, even on another server.
        assert_eq!(groups(RoundMode::Hybrid, &[local(), other()], true), [vec![0], vec![1]]);
        // Sequential stays so.
        let lanes = [local(), other(), hosted()];
        assert_eq!(groups(RoundMode::Sequential, &lanes, true), [vec![0], vec![1], vec![2]]);
        // One queueing server's speakers alone: in turn, whatever the mode.
        let lanes = [local(), local(), local()];
        assert_eq!(groups(RoundMode::Hybrid, &lanes, true), [vec![0], vec![1], vec![2]]);
        assert_eq!(groups(RoundMode::Parallel, &lanes, true), [vec![0], vec![1], vec![2]]);
        assert!(groups(RoundMode::Parallel, &[], true).is_empty());
    }

    #[test]
    fn the_groups_hold_every_speaker_once_the_first_first_and_each_queue_in_picked_order() {
        let servers = [on("a", false), on("b", false), on("c", true)];
        // Every picked order of up to five speakers over three servers.
        for n in 0..=5u32 {
            for code in 0..3usize.pow(n) {
                let lanes: Vec<Lane> = (0..n).map(|k| servers[code / 3usize.pow(k) % 3].clone()).collect();
                for mode in [RoundMode::Hybrid, RoundMode::Parallel] {
                    let gs = groups(mode, &lanes, true);
                    let order: Vec<usize> = gs.iter().flatten().copied().collect();
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..lanes.len()).collect::<Vec<_>>(), "{lanes:?}");
                    assert_eq!(order.first().copied(), (!lanes.is_empty()).then_some(0));
                    for g in &gs {
                        for (x, &i) in g.iter().enumerate() {
                            assert!(g[x + 1..].iter().all(|&j| !queue_behind(&lanes[i], &lanes[j])), "{gs:?}");
                        }
                    }
                    for (x, &i) in order.iter().enumerate() {
                        let later_same = order[x + 1..].iter().filter(|&&j| lanes[j] == lanes[i] && !lanes[i].together);
                        assert!(later_same.into_iter().all(|&j| j > i), "a queue keeps its order: {gs:?}");
                    }
                }
            }
        }
    }
}
