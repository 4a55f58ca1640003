//! The scorer's classes, each heard on replies a facilitator would wince at.

use super::*;

pub(super) fn judge(chinese: bool) -> Judge {
    let roster = [
        ("analyst", "Maya", if chinese { "业务分析师" } else { "Business Analyst" }),
        ("developer", "Kofi", "Senior Developer"),
        ("ux", "Priya", "UX Designer"),
    ]
    .iter()
    .map(|(id, name, title)| Person {
        id: id.to_string(),
        name: name.to_string(),
        title: title.to_string(),
        profile: HashSet::new(),
        principles: if *id == "analyst" {
            vec!["Every claim needs a source".into(), "先弄清问题和谁有这个问题".into()]
        } else {
            vec![]
        },
    })
    .collect();
    Judge {
        roster,
        facilitator: "Sam".into(),
        chinese,
        runtime_texts: vec!["Speak only as yourself and never write lines for the other agents or for the facilitator.".into()],
        phrases: Phrases::builtin(),
    }
}

pub(super) fn said(by: Option<&str>, text: &str) -> Said {
    Said {
        by: by.map(String::from),
        text: text.into(),
    }
}

#[test]
fn greeting_oneself_is_addressing_oneself_and_greeting_another_is_not() {
    let j = judge(false);
    let before = [
        said(None, "How do we pick a database?"),
        said(Some("developer"), "Start with Postgres."),
    ];
    for reply in [
        "Hey Maya, Postgres it is, with nightly backups.",
        "Maya, we should pick Postgres and test the backups.",
        "Postgres it is, with nightly backups and a restore drill, Maya!",
    ] {
        assert_eq!(j.judge("analyst", reply, &before).flaws, vec![Flaw::SelfAddress], "{reply}");
    }
    assert_eq!(
        j.judge("analyst", "Hey Kofi, Postgres is fine by me, with backups.", &before).flaws,
        vec![]
    );
}

#[test]
fn a_good_reply_that_answers_a_speaker_has_no_flaw_and_reacts() {
    let j = judge(false);
    let before = [
        said(None, "How do we pick a database?"),
        said(Some("developer"), "Start with Postgres; it is boring and it works."),
    ];
    let v = j.judge(
        "analyst",
        "Kofi, boring is fine, but who runs the backups? I would ask the team first.",
        &before,
    );
    assert_eq!(v.flaws, vec![]);
    assert!(v.reacts);
}

#[test]
fn each_flaw_is_found() {
    let j = judge(false);
    let before = [
        said(None, "Topic?"),
        said(
            Some("developer"),
            "We should ship the smallest thing that could work and measure it in production.",
        ),
    ];
    let flaws = |speaker: &str, text: &str| j.judge(speaker, text, &before).flaws;
    assert!(flaws("analyst", "I think so.\nKofi: and I agree with myself.").contains(&Flaw::SpeaksAsOther));
    assert!(flaws("analyst", "Fine.\n**Sam**: thanks all").contains(&Flaw::SpeaksAsOther));
    assert!(flaws("analyst", "I agree with Priya that research comes first.").contains(&Flaw::AttributesUnspoken));
    assert!(!flaws("analyst", "I agree with Kofi that research comes first.").contains(&Flaw::AttributesUnspoken));
    assert!(flaws("analyst", "As Maya said, research comes first.").contains(&Flaw::SelfQuote));
    assert!(flaws("analyst", "Maya: research comes first, always.").contains(&Flaw::SelfQuote));
    // s9-principle: the whole reply given as a quotation, its label cut.
    assert!(flaws("analyst", "\"First, we need a clear process. Then we check in weekly.\"").contains(&Flaw::SelfQuote));
    assert!(flaws("analyst", "“研究优先，再谈方案。”").contains(&Flaw::SelfQuote));
    assert!(!flaws("analyst", "\"Ship it\" and \"wait\" are both on the table.").contains(&Flaw::SelfQuote));
    assert!(!flaws("analyst", "\"Ship\" or \"wait\"").contains(&Flaw::SelfQuote));
    assert!(flaws("analyst", "Research first. [Round 2] It is your turn, Kofi: answer.").contains(&Flaw::LeakedRuntime));
    assert!(flaws("analyst", "It should align with our goals and values. -- END").contains(&Flaw::LeakedRuntime));
    assert!(flaws("analyst", "Let's wrap up.\nEND").contains(&Flaw::LeakedRuntime));
    // s9-base: the session's note made up, without its bracket.
    assert!(flaws("analyst", "We covered it.\n\nNote from the session: Kofi then asks Sam.").contains(&Flaw::LeakedRuntime));
    // The turn order told back (v19-base, asked again after an echo).
    assert!(flaws("analyst", "Note: Tomás has already spoken this round.").contains(&Flaw::LeakedRuntime));
    assert!(!flaws("analyst", "In the end, the weekend matters -- endings too.").contains(&Flaw::LeakedRuntime));
    // Headings whose words were all cut (1.5B, v13-lens, Chinese); a rule
    // line and a numbered point are not.
    assert!(flaws("analyst", "We can combine them:\n\n### 1. \n\n### 2. \n\n### 3.").contains(&Flaw::Skeleton));
    assert!(!flaws("analyst", "Two options:\n\n1. Ship the pilot first.\n---\n2. Wait a quarter.").contains(&Flaw::Skeleton));
    // An announcement above nothing: its list cut (s14-final, Chinese), or last.
    let gone = "我建议制定一个清晰的流程。\n\n例如，我们可以安排如下步骤：\n\n\n\n通过这种方式，我们可以减少争议。";
    assert!(flaws("analyst", gone).contains(&Flaw::Skeleton));
    assert!(flaws("analyst", "Document the error codes first.\nHere's my recommendation:").contains(&Flaw::Skeleton));
    // A colon before its paragraph, or before its list, is speech.
    assert!(!flaws("analyst", "Here's the thing:\n\nWe ship on Friday either way.").contains(&Flaw::Skeleton));
    assert!(!flaws("analyst", "Two steps:\n\n\n1. Pilot.\n2. Measure.").contains(&Flaw::Skeleton));
    // A list of points for a turn (1.5B, v19-base: "This involves a clear onboarding
    // process that includes:" and seven bold-titled numbered points): an assistant's
    // answer. Two options said as items, a heading over prose and a number opening a
    // sentence are a turn.
    let list = "It includes:\n\n1. **Orientation**: one-on-ones.\n2. **Code reviews**: weekly.\n3. **Mentors**: one each.";
    assert!(flaws("analyst", list).contains(&Flaw::Listicle));
    assert!(flaws("analyst", "- Ship the pilot.\n- Measure it.\n- Decide in March.").contains(&Flaw::Listicle));
    assert!(flaws(
        "analyst",
        "**Pilot first:** ship it.\n\n**Measure**\nweekly.\n\n**Decide**: in March."
    )
    .contains(&Flaw::Listicle));
    assert!(flaws("analyst", "我的建议：\n1、先试点。\n2、再评估。\n3、最后推广。").contains(&Flaw::Listicle));
    assert!(!flaws("analyst", "Two options:\n\n1. Ship the pilot first.\n2. Wait a quarter.").contains(&Flaw::Listicle));
    let prose = "1.5 million users is a lot.\n3 people can run it.\n**Note** that we ship in March.\n-5 % churn.";
    assert!(!flaws("analyst", prose).contains(&Flaw::Listicle));
    assert!(!flaws("analyst", "### Risks\nThe migration could stall.").contains(&Flaw::Listicle));
    // Its own name or another's in brackets, no colon (judgement bench s6-final).
    assert!(flaws("analyst", "【Maya】研究优先。").contains(&Flaw::SelfQuote));
    assert!(flaws("analyst", "Research first.\n[Kofi] I agree.").contains(&Flaw::SpeaksAsOther));
    // …and in round brackets, a script's cue (s18-last: "(Kofi) Yes.").
    assert!(flaws("analyst", "Research first.\n\n(Kofi) Yes.").contains(&Flaw::SpeaksAsOther));
    assert!(!flaws("analyst", "(Kofi's numbers are from March.) Research first.").contains(&Flaw::SpeaksAsOther));
    // The facilitator's answer made up as a stage line, and narrated (v19-base).
    assert!(flaws("analyst", "研究优先。\n\n（Sam的回应：同意）").contains(&Flaw::SpeaksAsOther));
    assert!(flaws("analyst", "研究优先。\n\n（Sam同意并补充了他的观点）").contains(&Flaw::SpeaksAsOther));
    assert!(flaws("analyst", "Research first.\n(Kofi nods.)").contains(&Flaw::SpeaksAsOther));
    assert!(!flaws("analyst", "Research first. (Kofi, do you have numbers?)").contains(&Flaw::SpeaksAsOther));
    assert!(!flaws("analyst", "Research first.\n(Kofi and I tested it.)").contains(&Flaw::SpeaksAsOther));
    // Lines of others with their colons lost (1.5B, v13-vocative).
    assert!(flaws("analyst", "We should add a review.\nPriya Excellent points!").contains(&Flaw::SpeaksAsOther));
    assert!(flaws("analyst", "**Kofi** Great idea, Tomás.").contains(&Flaw::SpeaksAsOther));
    for speech in [
        "Kofi and I agree on reviews.",
        "Kofi, you are right.",
        "Kofi I agree with.",
        "Kofi's plan works.",
    ] {
        assert!(!flaws("analyst", speech).contains(&Flaw::SpeaksAsOther), "{speech}");
    }
    // The ask marker with the facilitator's name for its mention (1.5B, v12-lens).
    assert!(flaws("analyst", "!@Sam: I appreciate your thoughtful consideration.").contains(&Flaw::LeakedRuntime));
    assert!(!flaws("analyst", "Mail sam@example.com, or ping @Sam!").contains(&Flaw::LeakedRuntime));
    assert!(flaws(
        "analyst",
        "Remember to speak only as yourself and never write lines for the other agents."
    )
    .contains(&Flaw::LeakedRuntime));
    assert!(flaws(
        "analyst",
        "Yes. We should ship the smallest thing that could work and measure it in production."
    )
    .contains(&Flaw::Echo));
    assert!(flaws(
        "analyst",
        "Test the plan with users first. Test the plan with users first. Test the plan with users first."
    )
    .contains(&Flaw::Loop));
    assert!(flaws("analyst", "  ").contains(&Flaw::Empty));
    assert!(flaws("analyst", "我们应该先做用户调研，然后再决定数据库。").contains(&Flaw::WrongLanguage));
    assert!(flaws("analyst", &"word ".repeat(MAX_WORDS + 1)).contains(&Flaw::OverLength));
}

#[test]
fn chinese_replies() {
    let j = judge(true);
    let before = [said(None, "怎么选数据库？"), said(Some("developer"), "先用 Postgres，稳定可靠。")];
    let v = j.judge("analyst", "我同意Kofi的看法，但是备份谁来负责？我们要先问问团队。", &before);
    assert_eq!(v.flaws, vec![]);
    assert!(v.reacts);
    assert!(j
        .judge("analyst", "正如Priya所说，我们需要调研。", &before)
        .flaws
        .contains(&Flaw::AttributesUnspoken));
    assert!(j
        .judge("analyst", "We should start with research before anything else.", &before)
        .flaws
        .contains(&Flaw::WrongLanguage));
    assert!(j
        .judge("analyst", "Kofi：先用 Postgres。", &before)
        .flaws
        .contains(&Flaw::SpeaksAsOther));
}

#[test]
fn a_facilitators_ear_hears_the_assistant_the_stub_and_the_self_talk() {
    let j = judge(false);
    let before = [
        said(None, "How do we pick a database?"),
        said(Some("developer"), "Start with Postgres; it is boring and it works."),
    ];
    let flaws = |speaker: &str, text: &str| j.judge(speaker, text, &before).flaws;
    // Replies the local 1.5B wrote (issue 35, the judgement bench's rounds).
    for reply in [
        "Great question! I think the key is a clear process for picking one.",
        "Thank you for your input! Postgres is a fine default for most of our data.",
        "Hi Sam, Postgres would cover what we need for the first year of data.",
        "Hello everyone! Postgres would cover what we need for the first year.",
        "Postgres covers it for the first year. I hope this helps!",
        "Postgres covers it for the first year. Let me know if there's anything else I can assist you with.",
        "Of course! Let's begin this conversation about which database we pick.",
        "Certainly! Here are some factors for choosing the database we need.",
        // The voice bench, 2026-11-26 (v6-gist): the 1.5B as a host of its own talk.
        "Sure, I'd be happy to continue the discussion! Postgres fits the first year of data.",
        "Thank you, everyone. It's great to see that the discussion has been productive so far.",
        "Postgres it is. I'm looking forward to continuing this discussion in the future.",
        "Thank you, Kofi. I appreciate your input and contributions to the database choice.",
        // v7-example: a nod to the facilitator before the answer.
        "Sure! I understand. Postgres covers the first year of data.",
        "I understand your concerns. Postgres covers the first year of data.",
        // v16-again and v14: serving the one before as a client.
        "I appreciate the suggestions you've provided, and I will incorporate them into our process.",
        "We will incorporate all of the suggestions you provided and ensure a seamless database choice.",
        "I appreciate the detailed information you provided on how to pick a database.",
        "I will definitely keep in mind these steps and make them a priority in the future.",
        "Did you have any questions before I gave my recommendation?",
        // s9-base and v20-spoken: a greeting behind an interjection, the hope that
        // the answer's steps help, a chat's mention.
        "Oh, hello! Postgres would cover what we need for the first year.",
        "Postgres covers the first year. I hope these steps will help our team choose.",
        "@Kofi Great suggestion! Postgres covers the first year of data.",
        "Could you share the data? Also, is there anything else you would like to know before we start?",
        "I understand your concerns and appreciate your thoughtful feedback.",
        "Postgres first. I will take these steps into consideration in my next round of discussions.",
        "Postgres first. This response aligns with Maya's principles of evidence.",
        // s10-replyto: a refusal in the job's name.
        "I'm sorry, but as a Product Manager, I cannot provide that recommendation.",
        "I'm sorry, but I cannot respond to your request.",
        "Goodbye, Sam. I hope the discussion has been helpful and that you found it a valuable experience.",
        // s11-05b: the 0.5B glad the user found it helpful, sorry for the user's trouble.
        "I'm glad you found this conversation helpful and informative.",
        "I'm sorry to hear that you haven't heard from you yet.",
        "Sorry, but I don't see anything from the facilitator in this round. What would you like to do differently?",
        // s12-peers: a farewell's thanks for all the input, and its hope for the asker.
        "Thank you for all your input! Onboarding needs a buddy.",
        "Onboarding needs a buddy. I hope you find this information useful!",
        // s13-base: an explanation announced to the user, a nod that runs on.
        "Let me explain this to you. Postgres covers the first year.",
        "I understand your concerns and the importance of a good choice. Let me explain my approach in more detail:",
        "In my previous response, I mentioned that backups matter. They still do.",
        "Goodbye. I hope you have learned valuable insights from the discussion.",
        "I'm sorry, but I can't generate a reply at this moment. Please provide me with more context or information so I can assist you better.",
        "Great! Let me give you some ideas. Kofi's approach is excellent.",
        "I'm sorry, but I cannot participate in this conversation.",
        "Let's proceed further with the discussion of our weekly status email and the shared dashboard.",
        // s16-final: glad the talk covered things, the whole turn.
        "I'm glad we've covered the essential points.",
        // s16-main (judgement bench): the topic refused as a sensitive one.
        "I'm sorry, but I cannot participate in or support the discussion as it pertains to a sensitive and potentially illegal topic related to political figures.",
        "Sure, I can do that. Please share the previous round's discussion, and let me know which point you would like to build upon or disagree with.",
        "Postgres fits the first year. Thank you again for your guidance!",
        // s17-words: the offer of more as a question, a topic "discussed further", a
        // farewell that thanks the facilitator as a client.
        "Is there anything else you would like to add or discuss about this topic?",
        "Let's discuss this topic further. Customers have a voice.",
        "Let's think about this together. Votes need an owner.",
        "I appreciate the opportunity to contribute and thank you for all your insights.",
        "Goodbye, Sam! You've provided valuable insights and helped us make an informed decision.",
        "Thank you for your expertise and contribution to this project.",
        "Thank you, Tomás. Your input is very important and relevant to the discussion.",
    ] {
        assert!(flaws("analyst", reply).contains(&Flaw::Assistant), "{reply}");
    }
    for reply in [
        "I completely agree.",
        "Yes! Thank you!",
        "Agreed with Kofi.",
        "Let's wrap up.",
        // Names and thanks are no words of its own (v6-gist).
        "Thank you, Kofi. You're absolutely right.",
        "I completely agree with Kofi! You're absolutely right.",
        "Thank you, Kofi. I appreciate your input and contributions. Thank you, Maya.",
    ] {
        assert!(flaws("analyst", reply).contains(&Flaw::Stub), "{reply}");
    }
    // Terse colleague speech is no stub, nor is an offer of one's own work or
    // thanks with a reason an assistant's register, nor a user story a job.
    for reply in [
        "No. Use SQS; Kafka is too big for us.",
        // A colleague's sympathy and reading of the logs (s11-05b's phrases are narrower).
        "I'm sorry to hear the load test slipped, Kofi. Let's cut the scope.",
        "I'm sorry, but I can't take part in the discussion next Tuesday because I'm on leave.",
        "I don't see anything from the logs that points at the cache.",
        "I hope you find the logs before the demo, Kofi.",
        "Cut scope: no SSO in v1, add it in v2.",
        "No, Kofi. Use RDS, not EC2; ops is two people.",
        "I appreciate your feedback on the schema, but the index is still missing.",
        "I'd be happy to help with the migration scripts this week.",
        "As a new engineer, I want a setup script that runs in ten minutes.",
        "We will incorporate the retry logic in v2 and keep the schema small.",
        "We'll keep that in mind when sizing the cluster.",
        "We'll incorporate it in v2 once the billing schema settles.",
        "Kofi, the steps you outlined skip the security review; we will keep Postgres.",
        "Do you have any numbers on churn after the last outage, Sam?",
        "Let me explain why the restore drill matters: we lost a day last year.",
        "I understand your point about cost, Kofi, but the index is still missing.",
        "Let's discuss the voting rules further: one vote per account.",
        "Your point about the cache is relevant because the p99 doubled.",
        "Is there anything else you would like to add about the churn numbers, Kofi?",
        "In my last job we lost a week to a restore that nobody had tested.",
        "Please provide the restore logs by Friday, Kofi, so we can size the drill.",
        "Thanks for your help with the restore drill, Kofi; I'll own the next one.",
        // Review, s13: a refusal with its reason, a request, a job one holds, a plan.
        "Sorry, but I can't give my answer until the load test is done.",
        "Please provide more details on the cost, Kofi.",
        "I'm the only tester on the team, so I need two more days.",
        "In my last message to the vendor I asked for a refund.",
        "I understand your concern and I share it: the restore was never tested.",
        "Let me explain my point: the restore took nine hours.",
        "Let me give you a few options, Kofi: nightly or weekly.",
        "Please share the rollback plan before Friday, Kofi.",
        "I'm sorry, but as the architect, I cannot give a date before the load test.",
    ] {
        assert_eq!(flaws("analyst", reply), vec![], "{reply}");
    }
    assert!(flaws("analyst", "I completely agree. The backups need an owner before we pick anything.").contains(&Flaw::BareStance));
    // s9-base: "you" answered, never named.
    assert!(flaws("analyst", "I agree with what you've just said. The backups need an owner first.").contains(&Flaw::BareStance));
    assert!(flaws("analyst", "Agreeing.\n\nAdditional points: the backups need an owner first.").contains(&Flaw::BareStance));
    assert!(!flaws("analyst", "Agreeing with Kofi here: the backups need an owner first.").contains(&Flaw::BareStance));
    assert!(
        !flaws("analyst", "I completely agree. Kofi, the backups need an owner before we pick.").contains(&Flaw::BareStance),
        "the next sentence names whom it agrees with"
    );
    assert!(flaws("analyst", "Maya thinks we should test the backups before we pick Postgres.").contains(&Flaw::SelfNarration));
    assert!(!flaws("developer", "Maya thinks we should test the backups before we pick Postgres.").contains(&Flaw::SelfNarration));
    // s12-final: its own belief named as another's would be.
    assert!(flaws("analyst", "Postgres fits. It aligns with Maya's belief in evidence first.").contains(&Flaw::SelfNarration));
    assert!(!flaws("developer", "Postgres fits. It aligns with Maya's belief in evidence first.").contains(&Flaw::SelfNarration));
    // v7-example: introducing itself by its job.
    for reply in [
        "As a business analyst, I believe the backups come first.",
        "Sure! As a senior developer, my role is to build it and run it.",
        // s13-base: which job it holds, told to colleagues.
        "I'm the Technical Writer at this platform. Let's talk about the backups.",
        "As a Senior Developer, I hope the backups get an owner this week.",
    ] {
        assert!(flaws("analyst", reply).contains(&Flaw::SelfNarration), "{reply}");
    }
    for reply in [
        "As a first step, I would test the restore.",
        "As a team, we own the backups.",
        "I'm a developer too, so I'd rather own the restore drill myself.",
    ] {
        assert!(!flaws("analyst", reply).contains(&Flaw::SelfNarration), "{reply}");
    }
    // A colleague's turn: none of these.
    let good = "Kofi, boring is good, but who owns the restore drill? I would put it on the ops rota first.";
    assert_eq!(flaws("analyst", good), vec![]);
    assert_eq!(flaws("analyst", "Hey Kofi, Postgres is fine by me, with backups."), vec![]);
}

#[test]
fn chinese_stubs_greetings_and_self_address() {
    let j = judge(true);
    let before = [said(None, "怎么选数据库？"), said(Some("developer"), "先用 Postgres，稳定可靠。")];
    let flaws = |speaker: &str, text: &str| j.judge(speaker, text, &before).flaws;
    assert!(flaws("analyst", "我完全同意。").contains(&Flaw::Stub));
    assert!(flaws("analyst", "我完全同意。").contains(&Flaw::BareStance));
    // s9-principle: introducing itself by name to colleagues.
    assert!(flaws("analyst", "当然，我是 Maya。\n\n我们先做只读的离线模式。").contains(&Flaw::SelfNarration));
    assert!(flaws("analyst", "同意。").contains(&Flaw::Empty));
    assert!(flaws("analyst", "大家好，今天我想和大家分享我们的数据库选型计划。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "先用 Postgres 吧，希望这对你有帮助。我们还要定备份方案。").contains(&Flaw::Assistant));
    // The voice bench, 2026-11-26 (v6-gist).
    assert!(flaws("analyst", "好的，我会继续讨论这个话题。我们已经讨论了数据库的选择。").contains(&Flaw::Assistant));
    // s16-final: a customer's thanks to everyone; a list carried on at its fifth point.
    assert!(flaws("analyst", "谢谢所有人的帮助，我会仔细考虑并改进导师体系。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "我会采取以下措施：\n\n5. **定期沟通**：每周和新员工聊一次。").contains(&Flaw::Headless));
    assert!(!flaws("analyst", "我会采取以下措施：\n\n1. **定期沟通**：每周和新员工聊一次。").contains(&Flaw::Headless));
    // s16-main (judgement bench): a vendor's farewell to a client; a yes after an okay.
    assert!(flaws("analyst", "我们先用 Postgres。再次感谢您的发言，期待我们未来的合作。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "好的，我同意。").contains(&Flaw::Stub));
    assert!(flaws("analyst", "非常感谢大家的讨论。我们尽快做备份方案。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "对不起，我不明白您在说什么。").contains(&Flaw::Assistant));
    // s11-05b: refusing the topic; a colleague's "can't answer before the test" says why.
    assert!(flaws("analyst", "对不起，我无法继续这个话题。").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "对不起，我无法在压测之前给出日期。").contains(&Flaw::Assistant));
    // s13-base: saying it wants to discuss the topic, and not discussing it.
    assert!(flaws("analyst", "小林，我想和你讨论一下关于把数据库搬到云上的话题。").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "我想和你讨论一下备份的负责人：我建议由 Kofi 来管。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "我明白你的担忧。先把备份定下来。").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "我明白你的担忧，但备份必须先有人负责。").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "Kofi，我想和你讨论一下回滚太慢的问题。").contains(&Flaw::Assistant));
    // s14-final: the turn note taken for a request, thanks to the room, the hope the user learned.
    assert!(flaws("analyst", "当然可以，我会用 Maya 的口吻说话。我建议先定备份方案。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "非常感谢你们的讨论。我们尽快做备份方案。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "好的，谢谢大家。希望你对数据库选型有更深入的理解。再见！").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "我会用 Kofi 的压测数据来定备份窗口。").contains(&Flaw::Assistant));
    assert!(!flaws("analyst", "我会以架构师的身份审核备份设计。").contains(&Flaw::Assistant));
    assert!(flaws("analyst", "谢谢 Kofi，你说得完全正确。").contains(&Flaw::Stub));
    assert!(flaws("analyst", "Maya，我们需要先确定数据量有多大，再选数据库。").contains(&Flaw::SelfAddress));
    assert!(flaws("analyst", "Maya认为我们应该先确定数据量，再选择数据库。").contains(&Flaw::SelfNarration));
    assert!(flaws("analyst", "作为一名业务分析师，我认为应该先确定数据量。").contains(&Flaw::SelfNarration));
    assert!(!flaws("analyst", "作为第一步，我们先确定数据量。").contains(&Flaw::SelfNarration));
    assert_eq!(flaws("analyst", "Kofi，稳定是好事，但是备份谁来负责？我们要先问问团队。"), vec![]);
}

#[test]
fn naming_someone_is_not_a_label() {
    let j = judge(false);
    let before = [said(None, "Topic?"), said(Some("developer"), "Ship it.")];
    let v = j.judge(
        "analyst",
        "Kofi, I hear you: shipping early matters. But: who pays for the rework?",
        &before,
    );
    assert!(!v.flaws.contains(&Flaw::SpeaksAsOther), "{v:?}");
}

#[test]
fn a_principle_said_word_for_word_is_a_creed_and_one_argued_from_is_not() {
    let j = judge(false);
    let before = [said(None, "How do we pick a database?")];
    let flaws = |speaker: &str, text: &str| j.judge(speaker, text, &before).flaws;
    // s10-replyto: the turn note's principle handed back as a slogan.
    assert!(flaws("analyst", "Every claim needs a source is a principle that aligns with our goals.").contains(&Flaw::Creed));
    assert!(flaws("analyst", "先弄清问题和谁有这个问题，这是我的原则。").contains(&Flaw::Creed));
    assert!(!flaws(
        "analyst",
        "Which benchmark backs the Postgres claim? I want a source before we commit."
    )
    .contains(&Flaw::Creed));
    // Another's principle said is not this speaker's creed.
    assert!(!flaws("developer", "Every claim needs a source, Maya would say, so here is one.").contains(&Flaw::Creed));
}

#[test]
fn a_reply_opening_on_what_it_does_not_say_is_headless() {
    let before = [
        said(None, "Should we let every engineer deploy to production on their own?"),
        said(Some("developer"), "Start with Postgres; it is boring and it works."),
    ];
    let j = judge(false);
    // s13-final: the stance cut as an echo, the reply left on "That way, …".
    for reply in [
        "That way, we can ensure that each engineer is responsible for the deployment.",
        "Additionally, the on-call rotation needs a second engineer for every deploy.",
        "**Furthermore**, the rollback has to take less than five minutes.",
        "2. **Rollback drills**: every engineer runs one in the first month.",
    ] {
        assert!(j.judge("analyst", reply, &before).flaws.contains(&Flaw::Headless), "{reply}");
    }
    for reply in [
        "That way of deploying scares me: one bad push and checkout is down.",
        "Kofi, then we need a rollback that takes five minutes, not an hour.",
        "1. Rollback drills first, then the deploy rights.",
        "2.5 hours of pager a night is what weekly shifts cost us.",
        "In addition to Kofi's rollback plan, each engineer pairs on the first deploy.",
    ] {
        assert!(!j.judge("analyst", reply, &before).flaws.contains(&Flaw::Headless), "{reply}");
    }
    let j = judge(true);
    let before = [said(None, "我们要不要把测试环境全部搬到云上？")];
    for reply in [
        "此外，我们还需要考虑云上测试环境的成本问题。",
        "这样一来，每个团队都能按需申请测试环境。",
    ] {
        assert!(j.judge("analyst", reply, &before).flaws.contains(&Flaw::Headless), "{reply}");
    }
    assert!(!j
        .judge("analyst", "这样做的风险是测试数据会离开公司网络。", &before)
        .flaws
        .contains(&Flaw::Headless));
}

#[test]
fn its_own_title_written_as_a_label_is_its_own_label() {
    let j = judge(true);
    let before = [said(None, "我们该不该规定每次代码评审都必须有两个人批准？")];
    let v = j.judge("analyst", "业务分析师：我们得先弄清楚谁在抱怨评审太慢。", &before);
    assert!(v.flaws.contains(&Flaw::SelfQuote), "{v:?}");
    // Its job as a sentence's subject is speech.
    let v = j.judge("analyst", "业务分析师的工作是先弄清楚问题：谁在抱怨评审太慢？", &before);
    assert!(!v.flaws.contains(&Flaw::SelfQuote), "{v:?}");
    let j = judge(false);
    let before = [said(None, "Should we rewrite billing in Rust?")];
    let v = j.judge("analyst", "**Business Analyst**: who files the billing bugs today?", &before);
    assert!(v.flaws.contains(&Flaw::SelfQuote), "{v:?}");
}

#[test]
fn an_invitation_handed_back_and_a_vendors_thanks_are_an_assistants() {
    let j = judge(false);
    let before = [said(None, "Should we rewrite our mobile app in a cross-platform framework?")];
    let v = |r: &str| j.judge("analyst", r, &before).flaws;
    // Each shown in s18-final.
    assert!(v("Is there anything else you need to ask me about the topic of cross-platform development?").contains(&Flaw::Assistant));
    assert!(v("I appreciate the constructive feedback and discussion.").contains(&Flaw::Assistant));
    assert!(v("As you speak as Sam in your persona, you take away the trade-offs.").contains(&Flaw::Assistant));
    assert!(v("In conclusion, Maya strongly advocates for rethinking our approach.").contains(&Flaw::SelfNarration));
    // A question of one's own, feedback argued with, a persona of the users' and another's view are talk.
    assert!(!v("Is there anything else the app needs before we pick, Sam?").contains(&Flaw::Assistant));
    assert!(!v("I appreciate the feedback on the rollout, Kofi, but two weeks is too short.").contains(&Flaw::Assistant));
    assert!(!v("Our nurse persona never opens the app offline, so that is the case to test.").contains(&Flaw::Assistant));
    assert!(!v("Kofi strongly advocates a rewrite, and the numbers say otherwise.").contains(&Flaw::SelfNarration));
    // s18-data's farewell: a guest's thanks to the host.
    assert!(v("Thank you for having me here and for giving me an opportunity to share my thoughts.").contains(&Flaw::Assistant));
    assert!(!v("Having me own the rollout gives us an opportunity to test it early.").contains(&Flaw::Assistant));
    let j = judge(true);
    let before = [said(None, "我们要不要给所有新功能都加上功能开关？")];
    let v = |r: &str| j.judge("analyst", r, &before).flaws;
    assert!(v("我非常感激你们的讨论。开关要有到期时间。").contains(&Flaw::Assistant));
    assert!(v("开关要有到期时间。\n\n谢谢你的耐心和指导。").contains(&Flaw::Assistant));
    assert!(v("好的，我会重新写一下。\n\n开关要有到期时间。").contains(&Flaw::Assistant));
    assert!(v("我同意您的观点。").contains(&Flaw::BareStance));
    assert!(!v("我会重新写一下开关的命名规范，下周发给大家。").contains(&Flaw::Assistant));
    // s18-data: a turn announced as an answer, and a greeting opening a line.
    assert!(v("当然可以。我将直接回答这个问题并提出我的观点。").contains(&Flaw::Assistant));
    assert!(v("开关要有到期时间。\n\nHiro 你好，Tomás。我在思考会议的问题。").contains(&Flaw::Assistant));
    assert!(!v("我们要对用户说一声你好，再上线开关。").contains(&Flaw::Assistant));
    assert!(!v("我同意 Kofi 的观点。开关要有到期时间。").contains(&Flaw::BareStance));
}

#[test]
fn the_talk_remarked_on_and_the_room_thanked_for_taking_part_are_an_assistants() {
    let j = judge(false);
    let before = [said(None, "Should we offer customers a yearly plan at a discount?")];
    let assistant = |r: &str| j.judge("analyst", r, &before).flaws.contains(&Flaw::Assistant);
    // Each shown in s15-base.
    assert!(assistant("Well, it seems like we have a good discussion.\n\nWe need a decision."));
    assert!(assistant("I hope you had a great time discussing this topic with Sam!"));
    assert!(assistant(
        "Thank you for your participation in the discussion! Have a great day ahead!"
    ));
    assert!(assistant("I thank everyone for participating in the discussion on yearly plans."));
    // A plan found good, and a discussion of something, are talk.
    assert!(!assistant("It seems like we have a good plan for billing, so let's ship it."));
    assert!(!assistant("It seems like we have a good discussion of churn in the notes, Kofi."));
    let v = j.judge("analyst", "As a Business Analyst, I thank everyone for the numbers.", &before);
    assert!(v.flaws.contains(&Flaw::SelfNarration), "{v:?}");
    let j = judge(true);
    let before = [said(None, "我们要不要取消每天早上的站会？")];
    let assistant = |r: &str| j.judge("analyst", r, &before).flaws.contains(&Flaw::Assistant);
    assert!(assistant("好的，让我们来讨论这个问题。每天的站会确实太长。"));
    assert!(assistant("谢谢小林。我们将继续讨论这个问题，寻找一个平衡点。"));
    assert!(assistant("好的，我们已经结束了讨论。感谢各位团队成员的参与和贡献！"));
    assert!(!assistant("让我们来讨论这个问题的根源：谁在站会上等得最久？"));
}

#[test]
fn a_help_desk_on_a_small_model_is_an_assistants_register() {
    let j = judge(false);
    let before = [said(None, "Should we offer customers a yearly plan at a discount?")];
    let assistant = |r: &str| j.judge("analyst", r, &before).flaws.contains(&Flaw::Assistant);
    // A refusal naming nothing, help offered, thanks answered that nobody gave.
    assert!(assistant("I apologize for the confusion, but I can't assist with that."));
    assert!(assistant("I understand you're seeking a discount on your first year."));
    assert!(assistant("Yes, you're welcome! You have provided an example."));
    assert!(assistant(
        "What are your main concerns? Would you like me to help provide a better example?"
    ));
    assert!(assistant(
        "I'd love to hear more about the experience you've had with this request."
    ));
    assert!(assistant("Sure, I can help you with that! Let's begin."));
    // What it cannot help with, named, and a customer made welcome, are talk.
    assert!(!assistant("I apologize, but I can't help with the migration before May."));
    assert!(!assistant("You're welcome to try the yearly plan, we tell customers."));
    assert!(!assistant("Kofi, I can help you with that migration next week."));
    assert!(!assistant("I disagree with your request for two approvers."));
    assert!(!assistant("Would you like me to explain the churn numbers, Kofi?"));
    let j = judge(true);
    let before = [said(None, "我们要不要取消每天早上的站会？")];
    let assistant = |r: &str| j.judge("analyst", r, &before).flaws.contains(&Flaw::Assistant);
    assert!(assistant("你的想法听起来非常有趣，但我需要考虑是否符合可持续的节奏。"));
    assert!(assistant("感谢您的邀请，我会与您讨论如何利用新知识和技能。"));
    assert!(!assistant("Tomás，你的提议听起来不错，但站会可以改到周一。"));
    assert!(!assistant("下周我们会继续讨论这个问题，先拿数据。"));
}

#[test]
fn a_turn_that_asks_and_answers_itself_line_by_line_is_two_voices() {
    let j = judge(false);
    let before = [said(None, "Should we rewrite our Java backend in Rust this year?")];
    let flaws = |text: &str| j.judge("developer", text, &before).flaws;
    // s16-main, the judgement bench's rewrite: one turn as a script of two.
    let script = "Rust has fewer runtime errors than Java.\nWould we have to invest a significant amount of time and effort in rewriting our backend?\nThat is true, but with the right tools we can minimize the impact on our users.";
    assert!(flaws(script).contains(&Flaw::SelfDialogue), "{script}");
    let zh = judge(true);
    let script = "Rust 的运行时错误更少。\n我们需要投入很多时间重写吗？\n是的，但是有了合适的工具，影响可以降到最低。";
    assert!(
        zh.judge("developer", script, &before).flaws.contains(&Flaw::SelfDialogue),
        "{script}"
    );
    // Asked and answered on one line, as a colleague argues aloud; or a
    // question the next line does not answer.
    for reply in [
        "Will it cost more? Yes, at first, but the on-call load drops by half.",
        "Would we have to invest a lot of time?\nThe billing module alone is 40,000 lines of Java.",
        "Kofi, is the billing module the slowest part?\nYesterday's profile says it is.",
    ] {
        assert!(!flaws(reply).contains(&Flaw::SelfDialogue), "{reply}");
    }
}
