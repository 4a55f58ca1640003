use super::sentences::token_hashes;
use super::*;
use crate::engine::protocol::markers::Marker;

fn voices() -> Voices {
    Voices::new(
        "Maya",
        vec!["Kofi".into(), "Priya".into(), "Sam".into(), "Facilitator".into()],
        vec!["Priya".into()],
        language::of("English"),
    )
    .runtime("Reply now as Maya only: your own words, no name label, two to five sentences.")
    .another("Kofi", EARLIER)
}

/// The room's markers, the end marker as every room writes it.
pub(super) fn room_markers(ask: Marker) -> crate::engine::protocol::markers::RoomMarkers {
    crate::engine::protocol::markers::RoomMarkers {
        end: Marker::new("<!-- END -->"),
        ask,
    }
}

/// Feeds `reply` in pieces of `n` characters; returns (shown, kept, cut kinds, stopped).
fn run(reply: &str, n: usize, cap: Option<u32>, capped: bool) -> (String, String, Vec<CutKind>, bool) {
    let v = voices();
    let mut h = Cleanup::new(&v, cap, Level::Full);
    let chars: Vec<char> = reply.chars().collect();
    let mut shown = String::new();
    let mut stopped = false;
    for piece in chars.chunks(n) {
        let step = h.push(&piece.iter().collect::<String>());
        shown.push_str(&step.show);
        if step.stop {
            stopped = true;
            break;
        }
    }
    shown.push_str(&h.finish(capped));
    let kinds = h.cuts().iter().map(|c| c.kind).collect();
    (shown, h.kept().to_string(), kinds, stopped || h.stopped())
}

/// What the fixtures' room said before (`cases.toml`'s header).
pub(super) const EARLIER: &str = "We should ship the smallest thing that could work and measure it in production.";

#[test]
fn token_starts_match_the_tokens() {
    for s in [
        "",
        "Kofi's plan, v2 — ship it!",
        "我们 should 试试 MVP。",
        "  a  b\n\nc ",
        "Tomás’ café, naïve—Ω ok",
    ] {
        assert_eq!(token_starts(s).len(), token_hashes(s).len(), "{s:?}");
    }
    assert_eq!(token_starts("ab 我们c"), [0, 3, 6, 9]);
}

#[test]
fn a_plain_reply_passes_whole_and_streams() {
    let reply = "Boring tech wins here. Kofi is right that we measure first, and I would add user interviews.";
    for n in [1, 3, 7, 100] {
        let (shown, kept, cuts, stopped) = run(reply, n, None, false);
        assert_eq!(shown, reply, "pieces of {n}");
        assert_eq!(kept, reply);
        assert!(cuts.is_empty() && !stopped, "{cuts:?}");
    }
    // Streams: most of the first sentence is out before the reply ends.
    let v = voices();
    let mut h = Cleanup::new(&v, None, Level::Full);
    let mut out = String::new();
    let long = "Boring tech wins here because nobody on a team of five has to learn it again, \
                nobody has to be paged for it at night, and every library we need already speaks to it";
    for w in long.split_inclusive(' ') {
        out.push_str(&h.push(w).show);
    }
    assert!(out.len() > 100, "shown while streaming: {out:?}");
    // The last words wait: a copy may be starting there.
    assert!(!out.contains("speaks"), "{out:?}");
}

#[test]
fn naming_someone_mid_line_or_addressing_them_is_speech() {
    for reply in [
        "Kofi, I hear you: measure first.",
        "We differ here, Kofi: I would not wait.",
        "Kofiko: a product name.",
    ] {
        let (shown, _, cuts, _) = run(reply, 3, None, false);
        assert_eq!(shown, reply);
        assert!(cuts.is_empty(), "{reply}: {cuts:?}");
    }
}

#[test]
fn own_labels_and_prefaces_are_removed() {
    assert_eq!(run("Maya: Research first.", 2, None, false).0, "Research first.");
    assert_eq!(
        run("**Maya** (Business Analyst): Research first.", 4, None, false).0,
        "Research first."
    );
    assert_eq!(run("It is my turn, Maya: research first.", 3, None, false).0, "research first.");
    let (shown, _, cuts, _) = run("As Maya said, research comes first.", 2, None, false);
    assert_eq!(shown, "Research comes first.");
    assert_eq!(cuts, [CutKind::SelfQuote]);
    // The greeting goes as self-address, the praise for the question as an
    // assistant's register.
    let (shown, _, cuts, _) = run("Hey Maya, great question! Research first.", 3, None, false);
    assert_eq!(shown, "Research first.");
    assert_eq!(cuts, [CutKind::SelfQuote, CutKind::OutOfCharacter]);
    assert_eq!(
        run("Maya, thank you. Research first.", 2, None, false).0,
        "Thank you. Research first."
    );
    // The label's colon alone, or after the label.
    assert_eq!(run(": Amara, research first.", 3, None, false).0, "Amara, research first.");
    assert_eq!(run("Maya: : Amara, research first.", 4, None, false).0, "Amara, research first.");
    assert_eq!(run(":) Research first.", 2, None, false).0, ":) Research first.");
    // Later in the reply too (the 1.5B's Kofi: "Ingrid, you're right. Kofi, I totally agree.").
    assert_eq!(
        run("Kofi is right.\nMaya, I totally agree with him.", 3, None, false).0,
        "Kofi is right.\nI totally agree with him."
    );
    // Greeting someone else is fine; so is the name later on.
    assert_eq!(run("Hey Kofi, research first.", 2, None, false).0, "Hey Kofi, research first.");
    assert_eq!(run("Mayans, research first.", 2, None, false).0, "Mayans, research first.");
}

#[test]
fn a_sentence_that_closes_on_the_speakers_own_name_loses_it() {
    // The local 1.5B's farewell by Ingrid: "Thank you for your insightful answer, Ingrid!"
    for n in [1, 3, 50] {
        // Without the name it is an assistant's thanks, which goes too.
        let (shown, _, cuts, _) = run(
            "Research first. Thank you for your insightful answer, Maya! Kofi is right.",
            n,
            None,
            false,
        );
        assert_eq!(shown, "Research first. Kofi is right.", "pieces of {n}");
        assert_eq!(cuts, [CutKind::SelfQuote, CutKind::OutOfCharacter]);
        let (shown, _, cuts, _) = run("Research first. That settles it, Maya! Kofi is right.", n, None, false);
        assert_eq!(shown, "Research first. That settles it! Kofi is right.", "pieces of {n}");
        assert_eq!(cuts, [CutKind::SelfQuote]);
        // A long sentence streams before its end; its closing words do not.
        let long = "Research first, because every shop we asked told us the same thing about delivery costs and fresh bread, maya.";
        let (shown, _, cuts, _) = run(long, n, None, false);
        assert_eq!(shown, long.replace(", maya", ""), "pieces of {n}");
        assert_eq!(cuts, [CutKind::SelfQuote]);
    }
    // Someone else's name, or her own name not as a call, stays.
    for keep in [
        "Thank you, Kofi! Billing goes first.",
        "Research first, as I told Maya.",
        "Research first: that is Maya.",
    ] {
        assert_eq!(run(keep, 2, None, false).0, keep);
    }
}

#[test]
fn talk_about_writing_the_reply_is_removed() {
    // More forms are rows of tests/fixtures/cleanup/cases.toml.
    for reply in [
        "Sure, I'll be Maya's voice.\nResearch first.",
        "Of course. Here is my reply: Research first.",
    ] {
        let (shown, _, cuts, _) = run(reply, 3, None, false);
        assert_eq!(shown.trim_start(), "Research first.", "{reply}");
        assert!(cuts.contains(&CutKind::OwnLabel), "{reply}: {cuts:?}");
    }
    // An interjection of the speaker's own is shown, in its place.
    for keep in ["Agreed.\nResearch first.", "Absolutely! Research first."] {
        for n in [1, 4, 80] {
            let (shown, _, cuts, _) = run(keep, n, None, false);
            assert_eq!(shown, keep, "pieces of {n}");
            assert!(cuts.is_empty(), "{cuts:?}");
        }
    }
    let long = "Sure! Research comes first because every shop we asked told us the same thing about delivery costs, fresh bread and the hours that a small team can keep";
    assert_eq!(run(long, 2, None, false).0, long);
}

#[test]
fn a_marker_line_reciting_the_runtime_is_cut() {
    let mut v = voices();
    v.markers = Some(room_markers(Marker::new("!?@human")));
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push("Research first.\n!?@human Which users matter most?\n").show + &h.finish(false);
    assert!(shown.contains("!?@human Which users"), "{shown}");
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h
        .push("Research first.\n!?@human your own words, no name label, two to five sentences.\n")
        .show
        + &h.finish(false);
    assert_eq!(shown, "Research first.\n");
    assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::RuntimeText]);
}

#[test]
fn a_marker_line_handing_back_what_was_said_word_for_word_is_an_echo() {
    // The 1.5B wrote "!?@human How do we onboard new engineers so they ship
    // in their first week?", the facilitator's own topic, as its whole turn
    // (voice bench v13-lens, twice); a question of its own reusing the
    // facilitator's words stays.
    let topic = "How do we onboard new engineers so they ship in their first week?";
    let mut v = voices().facilitator("Sam", topic);
    v.markers = Some(room_markers(Marker::new("!?@human")));
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push(&format!("!?@human {topic}\n")).show + &h.finish(false);
    assert_eq!(shown.trim(), "");
    assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo]);
    // Another's point asked back as a question is the reading's to judge,
    // not an echo; given back as a statement, it is one.
    let mut h = Cleanup::new(&v, None, Level::Full);
    let again = "!?@human Should we ship the smallest thing that could work and measure it in production?\n";
    assert_eq!(h.push(again).show + &h.finish(false), again);
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push(&format!("!?@human {EARLIER}\n")).show + &h.finish(false);
    assert_eq!(shown.trim(), "");
    assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo]);
    let own = "!?@human How do we onboard new engineers who work remotely, in their first week?\n";
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push(own).show + &h.finish(false);
    assert_eq!(shown, own);
}

#[test]
fn a_heading_or_the_marker_written_with_the_facilitators_name_keeps_the_question() {
    let topic = "How do we onboard new engineers so they ship in their first week?";
    let mut v = voices().facilitator("Sam", topic);
    v.markers = Some(room_markers(Marker::new("!?@human").or_after_marks("@Sam")));
    let whole = |reply: &str| {
        let mut h = Cleanup::new(&v, None, Level::Full);
        h.push(reply).show + &h.finish(false)
    };
    // A held heading stays above the marker: the question follows it.
    let asked = "We should cap the budget.\nMy question:\n!?@human\nWhat is the cap?\n";
    assert_eq!(whole(asked), asked);
    // The marker in its alias opens a question of its own: no echo.
    let own = "!@Sam: How do we onboard new engineers who work remotely in their first week?\n";
    assert_eq!(whole(own), own);
    // Handed back whole in the alias, it is the echo it is with `!?@human`.
    assert_eq!(whole(&format!("!@Sam: {topic}\n")).trim(), "");
    // A marker line ending in a colon is no heading.
    let last = "Which team pilots first?\n!@Sam:";
    assert_eq!(whole(last), last);
}

#[test]
fn runtime_text_cuts_the_reply() {
    let (shown, _, cuts, stopped) = run(
        "Research first. Reply now as Maya only: your own words, no name label.",
        2,
        None,
        false,
    );
    assert_eq!(shown, "Research first. ");
    assert_eq!(cuts, [CutKind::RuntimeText]);
    assert!(stopped);
}

#[test]
fn echoes_are_dropped_and_loops_cut() {
    let echo = "Yes. We should ship the smallest thing that could work and measure it in production. But talk to users.";
    let (shown, _, cuts, _) = run(echo, 3, None, false);
    assert_eq!(shown, "Yes. But talk to users.");
    assert_eq!(cuts, [CutKind::Echo]);
    // The same with the names swapped is the same copy.
    let v = voices().another("Kofi", "I agree with Priya's plan to ship in June.");
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push("I agree with the plan to ship in June. And measure.").show + &h.finish(false);
    assert_eq!(shown, "And measure.");
    // Naming the one it takes up, a sentence carries their words on
    // purpose: the room's cross-talk, never an echo.
    let h2 = |reply: &str| {
        let mut h = Cleanup::new(&v, None, Level::Full);
        h.push(reply).show + &h.finish(false)
    };
    assert_eq!(
        h2("I agree with Kofi's plan to ship in June. And measure."),
        "I agree with Kofi's plan to ship in June. And measure."
    );
    let took_up =
        "Right. Kofi, I agree that we should ship the smallest thing that could work and measure it in production. But talk to users.";
    for n in [1, 3, 8] {
        assert_eq!(run(took_up, n, None, false).0, took_up, "pieces of {n}");
    }
    // Sentences are judged whole: a reaction that goes on to copy is
    // never shown in part.
    let copy =
        "Right. Well, I agree that we should ship the smallest thing that could work and measure it in production. But talk to users.";
    for n in [1, 3, 8] {
        assert_eq!(run(copy, n, None, false).0, "Right. But talk to users.", "pieces of {n}");
    }
    // A long sentence streams; should a copy start late in it, the copy
    // is never shown, and what was shown is closed.
    let late = "Right. Well, I agree, and having watched three teams struggle with exactly this trade-off over the \
                last two years in fintech, I think that we should ship the smallest thing that could work and \
                measure it in production. But talk to users.";
    for n in [1, 3, 8] {
        let (shown, _, cuts, _) = run(late, n, None, false);
        assert!(
            shown.contains("in fintech") && shown.ends_with("… But talk to users."),
            "pieces of {n}: {shown:?}"
        );
        assert!(!shown.contains("smallest thing"), "pieces of {n}: {shown:?}");
        assert_eq!(cuts, [CutKind::Echo]);
    }
    // Stock lines too short for runs of words are compared whole, the
    // names being one word: said before, or twice, they go.
    let v = voices().earlier("Thank you, Kofi and Sam. Ship it.");
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h
        .push("Thank you, Priya and Kofi. Measure it first, always. Measure it first, always. And more.")
        .show
        + &h.finish(false);
    assert_eq!(shown, "Measure it first, always. ");
    assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo, CutKind::Loop]);
    // Dropped lines leave no run of blank lines behind.
    let (shown, _, _, _) = run(
        "Yes.\n\nWe should ship the smallest thing that could work and measure it in production.\n\nBut talk to users.",
        3,
        None,
        false,
    );
    assert_eq!(shown, "Yes.\n\nBut talk to users.");
    // A list's numbers stay with their items.
    let list = "Two things.\n1. Interview users first.\n2. We should ship the smallest thing that could work and measure it in production.\n3. Price it.";
    assert_eq!(run(list, 2, None, false).0, "Two things.\n1. Interview users first.\n3. Price it.");
    // On a second try echoes are kept, and still counted.
    let mut v = voices();
    v.keep_echoes = true;
    let mut h = Cleanup::new(&v, None, Level::Full);
    let shown = h.push(echo).show + &h.finish(false);
    assert_eq!(shown, echo);
    assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::Echo]);
    let (shown, _, cuts, stopped) = run(
        "Interview five users before the design review. Then decide. Interview five users before the design review. Then",
        4,
        None,
        false,
    );
    assert_eq!(shown, "Interview five users before the design review. Then decide. ");
    assert_eq!(cuts, [CutKind::Loop]);
    assert!(stopped);
}

#[test]
fn views_of_agents_who_have_not_spoken_are_dropped() {
    let (shown, _, cuts, _) = run("I agree with Priya that research comes first. Let us start Monday.", 3, None, false);
    assert_eq!(shown, "Let us start Monday.");
    assert_eq!(cuts, [CutKind::Unspoken]);
    let (shown, _, cuts, _) = run("Priya, what do you think about research?", 3, None, false);
    assert_eq!(shown, "Priya, what do you think about research?");
    assert!(cuts.is_empty());
    // Narrating the room: a title between the name and the verb.
    let (shown, _, cuts, _) = run(
        "Let us start Monday. Priya (UX Designer) suggests that we interview users first.",
        3,
        None,
        false,
    );
    assert_eq!(shown.trim(), "Let us start Monday.");
    assert_eq!(cuts, [CutKind::Unspoken]);
}

#[test]
fn a_capped_reply_ends_at_its_last_full_sentence_and_never_shows_the_rest() {
    let reply = "One. Two is a longer sentence that goes on and on and on and on";
    let (shown, kept, cuts, _) = run(reply, 1, Some(10), true);
    assert_eq!(shown, "One. ");
    assert_eq!(kept, "One. ");
    assert_eq!(cuts, [CutKind::Capped]);
}

#[test]
fn chinese_replies() {
    let v = Voices::new(
        "Maya",
        vec!["Kofi".into(), "小林".into()],
        vec!["Priya".into()],
        language::of("Chinese"),
    )
    .earlier("我们应该先发布最小可用版本，然后在生产环境中测量效果。");
    let mut h = Cleanup::new(&v, None, Level::Full);
    let mut shown = String::new();
    for c in "我同意先做调研。我们应该先发布最小可用版本，然后在生产环境中测量效果。\n小林：谢谢大家".chars()
    {
        shown.push_str(&h.push(&c.to_string()).show);
    }
    shown.push_str(&h.finish(false));
    assert_eq!(shown.trim_end(), "我同意先做调研。");
    assert_eq!(
        h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(),
        [CutKind::Echo, CutKind::SpeaksAsOther]
    );
}

#[test]
fn a_name_that_is_no_signature_stays() {
    // Another's name, the name inside a sentence or a line of words (the
    // signatures themselves are rows of tests/fixtures/cleanup/cases.toml).
    for reply in [
        "We should interview five users first.\n\nKofi",
        "We should interview five users first, as Maya",
        "Ask the users.\n\nMaya thinks so too.",
    ] {
        let (_, _, cuts, _) = run(reply, 3, None, false);
        assert!(!cuts.contains(&CutKind::Signature), "{reply:?}: {cuts:?}");
    }
}

#[test]
fn stepping_out_of_character_is_heard_in_every_form() {
    for (reply, kept) in [
        ("I'm just an AI, so take this lightly. Start with a survey.", "Start with a survey."),
        ("Ship it Tuesday. I am unable to assist with that request.", "Ship it Tuesday."),
        ("Ship it Tuesday.\nSorry, but I cannot help with this request.", "Ship it Tuesday."),
    ] {
        for n in [1, 3, 100] {
            let (shown, k, cuts, _) = run(reply, n, None, false);
            assert_eq!(shown.trim(), kept, "pieces of {n}: {reply:?}");
            assert_eq!(k.trim(), kept);
            assert_eq!(cuts, [CutKind::OutOfCharacter], "{reply:?}");
        }
    }
    for reply in [
        "As an AI product, it needs guardrails.",
        // A job introduction is its own rule (`job_intro`); a step is none.
        "As a first step, I'd start with the users.",
        "作为人工智能产品，它需要护栏。",
        "Sorry, Kofi, I disagree.",
    ] {
        let (shown, _, cuts, _) = run(reply, 3, None, false);
        assert!(!cuts.contains(&CutKind::OutOfCharacter), "{reply:?}: {cuts:?}");
        assert_eq!(shown.trim(), reply);
    }
}

#[test]
fn first_sentences_counts_sentences_of_both_scripts() {
    let text = "One. Two! Three? Four.";
    assert_eq!(super::first_sentences(text, 3).trim(), "One. Two! Three?");
    assert_eq!(super::first_sentences(text, 9), text);
    assert_eq!(
        super::first_sentences("先做试点。再看数据。最后决定。还有。", 2),
        "先做试点。再看数据。"
    );
}

/// `reply` pushed whole in a room with the end and ask markers: what is
/// shown and the kinds cut.
fn with_markers(reply: &str) -> (String, Vec<CutKind>) {
    let mut v = voices();
    v.markers = Some(room_markers(Marker::new("!?@human")));
    let mut h = Cleanup::new(&v, None, Level::Full);
    let mut shown = h.push(reply).show;
    shown.push_str(&h.finish(false));
    (shown, h.cuts().iter().map(|c| c.kind).collect())
}

#[test]
fn a_marker_written_in_part_is_dropped() {
    for reply in [
        "What are the benefits of each option?\n!-- END -->",
        "What are the benefits of each option?\n<!-- END\n",
    ] {
        let (shown, cuts) = with_markers(reply);
        assert_eq!(shown.trim(), "What are the benefits of each option?", "{reply:?}");
        assert_eq!(cuts, [CutKind::MarkerFragment]);
    }
    // The whole marker passes on to the marker filter, however spelt.
    for reply in ["Done here.\n<!-- END -->", "Done here.\n<!--END-->"] {
        let (shown, cuts) = with_markers(reply);
        assert!(shown.contains("END"), "{reply:?}");
        assert!(cuts.is_empty(), "{reply:?}");
    }
}

#[test]
fn an_opening_followed_only_by_the_end_marker_is_still_a_stub() {
    for reply in [
        "Here’s what I would do:\n<!-- END -->",
        "Thank you, Kofi.\n<!--END-->",
        "Sure!\nHere's what I would say:\n\n<!-- END -->\n",
    ] {
        let (shown, cuts) = with_markers(reply);
        assert!(!shown.contains("would") && !shown.contains("Thank"), "{reply:?}: {shown:?}");
        assert!(shown.contains("END"), "the marker passes on: {shown:?}");
        assert!(cuts.contains(&CutKind::Stub), "{reply:?}: {cuts:?}");
    }
}

#[test]
fn a_marker_made_up_in_the_end_markers_form_is_dropped_a_comment_in_words_is_not() {
    let (shown, cuts) = with_markers("<!-- BEGIN -->\nCompass it is.");
    assert_eq!(shown.trim(), "Compass it is.");
    assert_eq!(cuts, [CutKind::MarkerFragment]);
    let sample = "Use a comment:\n<!-- Hero section -->\nThen the banner.";
    assert_eq!(with_markers(sample), (sample.to_string(), vec![]));
}

#[test]
fn its_own_label_without_the_accent_is_its_own_label() {
    // The 1.5B as Tomás: "Tomas: Hi Sam, thank you for sharing this question."
    let v = Voices::new("Tomás", vec!["Kofi".into(), "Sam".into()], vec![], language::of("English"));
    for n in [1, 3, 100] {
        let mut h = Cleanup::new(&v, None, Level::Full);
        let mut shown = String::new();
        for piece in "Tomas: Onboarding starts with a buddy.".chars().collect::<Vec<_>>().chunks(n) {
            shown.push_str(&h.push(&piece.iter().collect::<String>()).show);
        }
        shown.push_str(&h.finish(false));
        assert_eq!(shown, "Onboarding starts with a buddy.", "pieces of {n}");
        assert_eq!(h.cuts().iter().map(|c| c.kind).collect::<Vec<_>>(), [CutKind::OwnLabel]);
    }
}

#[test]
fn a_short_chinese_sentence_is_never_taken_for_the_runtimes_words() {
    // Chinese runs are six characters: a shorter sentence holds none.
    let mut v = Voices::new("Maya", vec!["Kofi".into()], vec![], language::of("Chinese"))
        .runtime("（会话提示，不属于对话内容：第 1 轮。现在请写出 Maya 的发言，用中文。）");
    v.markers = Some(room_markers(Marker::new("!?@human")));
    for reply in ["我完全同意。我们先访谈五位离线用户。", "先访谈用户。\n!?@human 预算多少？"] {
        let mut h = Cleanup::new(&v, None, Level::Full);
        let shown = h.push(reply).show + &h.finish(false);
        assert_eq!(shown.trim(), reply, "{:?}", h.cuts());
        assert!(h.cuts().is_empty(), "{:?}", h.cuts());
    }
}

#[test]
fn a_stance_in_the_questions_words_said_by_another_first_is_an_echo() {
    let asked = "Should we rewrite the billing service in Rust this quarter?";
    let stance = "We should rewrite the billing service in Rust this quarter. The pager wakes us nightly.";
    let shown = |v: &Voices| {
        let mut h = Cleanup::new(v, None, Level::Full);
        h.push(stance).show + &h.finish(false)
    };
    assert_eq!(shown(&voices().facilitator("Sam", asked)), stance);
    let v = voices()
        .facilitator("Sam", asked)
        .another("Kofi", "We should rewrite the billing service in Rust this quarter.");
    assert_eq!(shown(&v).trim(), "The pager wakes us nightly.");
}

#[test]
fn a_take_up_is_kept_and_a_turn_of_nothing_else_is_no_turn() {
    let v = voices();
    let whole = |reply: &str| {
        let mut h = Cleanup::new(&v, None, Level::Full);
        let shown = h.push(reply).show + &h.finish(false);
        let left = h.left(&shown);
        (shown, left)
    };
    let took = "Kofi is right that we should ship the smallest thing that could work and measure it in production.";
    let (shown, left) = whole(took);
    assert_eq!((shown.as_str(), left), (took, Left::Nothing(vec!["echo"])));
    let more = format!("{took} I would check the payment interfaces first, though.");
    let (shown, left) = whole(&more);
    assert_eq!((shown, left), (more, Left::Speech));
    // At the light level nothing is judged a copy.
    let mut h = Cleanup::new(&v, None, Level::Light);
    let shown = h.push(took).show + &h.finish(false);
    assert_eq!(h.left(&shown), Left::Speech);
}
