use super::*;
use crate::engine::cast::Sources;
use crate::i18n::{Lang, Say};

fn brief(language: &str) -> Brief {
    Brief {
        topic: "Opening hours for a bakery".into(),
        size: 3,
        language: language.into(),
        lang: Lang::En,
        taken: vec!["Mary".into(), "Winston".into()],
        sources: Sources::default(),
    }
}

fn persona(name: &str, title: &str, role: &str) -> serde_json::Value {
    serde_json::json!({
        "name": name, "title": title, "icon": "🥐", "role": role,
        "identity": format!("{name}: {role}"),
        "communication_style": "Direct.", "principles": ["Fresh beats cheap"]
    })
}

fn three() -> serde_json::Value {
    serde_json::json!({
        "name": "Bakery hours", "scene": "Saturday, 6 a.m.",
        "personas": [persona("Ana", "Baker", "Bakes at 4 a.m."), persona("Bo", "Regular", "Buys bread daily."), persona("Cy", "Owner", "Pays the rent.")]
    })
}

#[test]
fn a_sound_draft_in_a_fence_with_prose_around_reads_with_no_flaw() {
    let answer = format!("Here is the cast:\n```json\n{}\n```\nEnjoy!", three());
    let got = read(&answer, &brief("English"));
    assert_eq!(got.flaws, vec![]);
    assert_eq!(got.draft.name, "Bakery hours");
    assert_eq!(got.draft.personas[2].principles, ["Fresh beats cheap"]);
}

#[test]
fn fields_under_other_names_and_principles_as_one_string_are_read() {
    let answer = r#"{"party_name": "Hours", "cast": [
        {"Name": "Ana", "Title": "Baker", "emoji": "🥐", "role": "Bakes.", "Background": "Ana bakes.", "communicationStyle": "Warm.", "principles": "- Fresh\n- Early"},
        {"name": "Bo", "title": "Regular", "icon": "a whole sentence, not an icon", "role": "Buys.", "bio": "Bo buys.", "tone": "Dry.", "values": ["Cheap"]},
        {"name": "Cy", "title": "Owner", "role": "Pays.", "identity": "Cy pays.", "style": "Blunt.", "principles": ["Rent"]}]}"#;
    let got = read(answer, &brief("English"));
    assert_eq!(got.flaws, vec![]);
    assert_eq!(got.draft.name, "Hours");
    let p = &got.draft.personas;
    assert_eq!(
        (p[0].icon.as_str(), p[0].principles.len(), p[0].communication_style.as_str()),
        ("🥐", 2, "Warm.")
    );
    assert_eq!(p[1].icon, "👤", "a sentence is no icon");
    assert_eq!((p[1].identity.as_str(), p[1].communication_style.as_str()), ("Bo buys.", "Dry."));
}

#[test]
fn each_flaw_is_found_and_names_the_persona() {
    let b = brief("English");
    assert_eq!(read("I cannot do that.", &b).flaws, vec![Cast::NoJson]);
    assert_eq!(read(r#"{"name": "x"}"#, &b).flaws, vec![Cast::NoPersonas]);
    let two = serde_json::json!({"personas": [persona("Ana", "Baker", "a"), persona("Bo", "Regular", "b")]});
    assert_eq!(read(&two.to_string(), &b).flaws, vec![Cast::Count { have: 2 }]);
    let mut v = three();
    v["personas"][1]["name"] = "mary".into();
    v["personas"][2]["name"] = "Ana".into();
    v["personas"][2]["role"] = "Bakes at 4 a.m.".into();
    v["personas"][0]["principles"] = serde_json::json!([]);
    let flaws = read(&v.to_string(), &b).flaws;
    assert_eq!(
        flaws,
        vec![
            Cast::Missing {
                at: 0,
                who: "Ana".into(),
                field: "principles".into()
            },
            Cast::Taken {
                at: 1,
                name: "mary".into()
            },
            Cast::SameName { at: 2, name: "Ana".into() },
            Cast::Alike {
                at: 2,
                who: "Ana".into(),
                other: "Ana".into(),
                field: "role".into()
            },
        ]
    );
    assert_eq!(
        flaws[1].to_string(),
        "mary is the name of someone already in the program: choose another name"
    );
}

#[test]
fn a_persona_in_another_language_is_a_flaw_and_names_are_not_counted() {
    let mut v = three();
    v["personas"][0]["name"] = "김하늘".into();
    assert_eq!(read(&v.to_string(), &brief("English")).flaws, vec![], "a name in Hangul is speech");
    let got = read(&v.to_string(), &brief("Korean"));
    assert_eq!(
        got.flaws.len(),
        3,
        "every persona written in English for a Korean room: {:?}",
        got.flaws
    );
    assert!(matches!(&got.flaws[0], Cast::Language { at: 0, language, .. } if language == "Korean"));
    for (i, p) in v["personas"].as_array_mut().unwrap().iter_mut().enumerate() {
        p["role"] = ["새벽에 빵을 굽습니다.", "매일 아침 빵을 삽니다.", "가게 임대료를 냅니다."][i].into();
        p["identity"] = [
            "새벽 네 시에 일어나 반죽을 만들고 오븐을 켭니다.",
            "출근길에 들러 아이들 도시락용 식빵을 고릅니다.",
            "월세와 직원 급여를 맞추느라 장부를 붙들고 삽니다.",
        ][i]
            .into();
        p["communication_style"] = "짧고 따뜻하게 말합니다.".into();
        p["principles"] = serde_json::json!(["신선함이 먼저입니다"]);
    }
    assert_eq!(
        read(&v.to_string(), &brief("Korean")).flaws,
        vec![],
        "a Korean room's personas in Korean"
    );
}

#[test]
fn with_documents_each_persona_cites_lines_it_was_shown() {
    let mut b = brief("English");
    b.sources = Sources::new(&[(
        "notes.md".into(),
        "Ana: we bake at four\nBo: I come at seven\nThe landlord: rent is up".into(),
    )]);
    let mut v = three();
    v["personas"][0]["lines"] = serde_json::json!([1]);
    v["personas"][1]["lines"] = "notes.md:2-3".into();
    v["personas"][2]["lines"] = serde_json::json!([9]);
    let got = read(&v.to_string(), &b);
    assert_eq!(got.draft.personas[1].lines, [2, 3]);
    assert_eq!(
        got.flaws,
        vec![Cast::NoSuchLine {
            at: 2,
            who: "Cy".into(),
            line: 9,
            last: 3
        }]
    );
    v["personas"][2].as_object_mut().unwrap().remove("lines");
    assert_eq!(read(&v.to_string(), &b).flaws, vec![Cast::NoLines { at: 2, who: "Cy".into() }]);
}

#[test]
fn the_last_answer_keeps_its_sound_personas_when_they_are_still_a_room() {
    let b = brief("English");
    let mut v = three();
    let mut list = v["personas"].as_array().unwrap().clone();
    list.push(persona("Mary", "Critic", "Doubts."));
    v["personas"] = list.into();
    let got = read(&v.to_string(), &b);
    let (draft, left_out) = salvage(&got, &b).expect("three sound personas are a room");
    assert_eq!((draft.personas.len(), left_out), (3, vec!["Mary".to_string()]));
    let mut v = three();
    v["personas"][0]["role"] = "".into();
    assert_eq!(salvage(&read(&v.to_string(), &b), &b), None, "two are not a room");
    assert_eq!(salvage(&read("no JSON", &b), &b), None);
    let seven =
        serde_json::json!({"personas": (0..7).map(|i| persona(&format!("P{i}"), &format!("T{i}"), &format!("R{i}"))).collect::<Vec<_>>()});
    let (draft, _) = salvage(&read(&seven.to_string(), &b), &b).expect("seven sound ones: the first six");
    assert_eq!(draft.personas.len(), 6);
}

#[test]
fn one_persona_asked_again_is_checked_against_the_others() {
    let b = brief("English");
    let others: Vec<Persona> = read(&three().to_string(), &b).draft.personas[..2].to_vec();
    let one = persona("Dee", "Neighbour", "Hears the oven.").to_string();
    assert_eq!(read_one(&one, &b, &others, None).map(|p| p.name), Ok("Dee".into()));
    let list = format!("[{}]", persona("Dee", "Neighbour", "Hears."));
    assert_eq!(
        read_one(&list, &b, &others, None).map(|p| p.name),
        Ok("Dee".into()),
        "a list of one"
    );
    let clash = persona("Bo", "Neighbour", "Hears.").to_string();
    assert_eq!(
        read_one(&clash, &b, &others, None),
        Err(vec![Cast::SameName { at: 2, name: "Bo".into() }])
    );
    // Someone else in Cy's place: not described as Cy (the 1.5B's `again`
    // kept the name it replaced: "Anna is a car enthusiast" for Mike).
    let cy = read(&three().to_string(), &b).draft.personas[2].clone();
    let mut as_cy = persona("Eli", "Courier", "Rides a cargo bike.");
    as_cy["identity"] = "Cy is a courier who wants the street open at dawn.".into();
    let flaws = read_one(&as_cy.to_string(), &b, &others, Some(&cy)).unwrap_err();
    assert!(matches!(flaws.as_slice(), [Cast::Crowded { .. }]), "{flaws:?}");
    assert_eq!(read_one(&one, &b, &others, Some(&cy)).map(|p| p.name), Ok("Dee".into()));
}

#[test]
fn every_rehearsed_cast_reads_as_a_sound_draft_in_each_language() {
    use crate::llm::{CastCue, ChatRequest, Cue, LlmEvent, Provider};
    use futures::StreamExt;
    let rehearsal = crate::llm::Rehearsal {
        token_delay: std::time::Duration::ZERO,
        ..Default::default()
    };
    for lang in [Lang::En, Lang::Zh] {
        for (topic, lines) in [("Pricing a ferry", 0_u32), ("夜市搬迁", 0), ("Interview notes", 7)] {
            let b = Brief {
                topic: topic.into(),
                size: 4,
                language: lang.speech_name().into(),
                lang,
                taken: vec!["Noor".into()],
                sources: Sources::new(&[("n.md".into(), "x\n".repeat(lines as usize))]),
            };
            let req = ChatRequest {
                model: None,
                endpoint: None,
                messages: vec![],
                temperature: 0.7,
                max_tokens: None,
                stop: vec![],
                json_schema: None,
                seed: None,
                cue: Cue::Cast(CastCue {
                    topic: topic.into(),
                    size: 4,
                    lines,
                    lang,
                    taken: b.taken.clone(),
                    one: false,
                }),
            };
            let answer: String = futures::executor::block_on(
                rehearsal
                    .stream(req)
                    .filter_map(|e| async move {
                        match e {
                            LlmEvent::Token(t) => Some(t),
                            _ => None,
                        }
                    })
                    .collect::<Vec<_>>(),
            )
            .concat();
            let got = read(&answer, &b);
            assert_eq!(got.flaws, vec![], "{lang:?} {topic}");
            assert_eq!(got.draft.personas.len(), 4);
            assert!(got.draft.personas.iter().all(|p| p.name != "Noor"), "a taken name is not used");
        }
    }
}

#[test]
fn roles_that_are_one_template_filled_with_each_name_are_alike_and_distinct_stakes_are_not() {
    let b = brief("English");
    let mut v = three();
    for (i, n) in ["Ana", "Bo", "Cy"].iter().enumerate() {
        v["personas"][i]["role"] = format!("{n} wants to turn half the parking spaces into a playground.").into();
    }
    let flaws = read(&v.to_string(), &b).flaws;
    assert!(
        matches!(flaws.as_slice(), [Cast::Alike { at: 1, .. }, Cast::Alike { at: 2, .. }]),
        "{flaws:?}"
    );
    let mut v = three();
    v["personas"][0]["role"] = "Parks her van there every night after the late shift.".into();
    v["personas"][1]["role"] = "Has two children and nowhere safe for them to play.".into();
    v["personas"][2]["role"] = "Collects the parking fees that pay for the lift repairs.".into();
    assert_eq!(read(&v.to_string(), &b).flaws, vec![]);
    let mut zh = three();
    for (i, n) in ["张先生", "李总", "王总"].iter().enumerate() {
        zh["personas"][i]["role"] = format!("{n}想要把一半停车位改成儿童游乐场。").into();
    }
    assert!(
        read(&zh.to_string(), &b).flaws.iter().any(|f| matches!(f, Cast::Alike { .. })),
        "in Chinese too"
    );
}

#[test]
fn a_persona_the_documents_name_stands_on_the_lines_that_name_them() {
    let mut b = brief("English");
    b.sources = Sources::new(&[(
        "notes.md".into(),
        "Interviews, October\nAna: we bake at four\nBo: I come at seven\nBo again: and leave at nine".into(),
    )]);
    let mut v = three();
    v["personas"][0]["lines"] = serde_json::json!([1, 2]);
    v["personas"][1]["lines"] = serde_json::json!([1, 2]);
    v["personas"][2]["lines"] = serde_json::json!([1]);
    let got = read(&v.to_string(), &b);
    assert_eq!(got.flaws, vec![]);
    let lines: Vec<&[u32]> = got.draft.personas.iter().map(|p| p.lines.as_slice()).collect();
    assert_eq!(
        lines,
        [&[1, 2][..], &[3, 4], &[1]],
        "Ana cites her line; Bo is put right; Cy is nowhere, so any line does"
    );
}

#[test]
fn an_identity_that_describes_the_whole_cast_is_crowded_and_the_last_resort_keeps_each_ones_part() {
    let b = brief("English");
    let mut v = three();
    let all = "Ana wants early hours, Bo wants late hours and Cy wants lower rent.";
    for i in 0..3 {
        v["personas"][i]["identity"] = all.into();
    }
    let got = read(&v.to_string(), &b);
    assert!(
        got.flaws.iter().all(|f| matches!(f, Cast::Crowded { .. })) && got.flaws.len() == 3,
        "{:?}",
        got.flaws
    );
    assert_eq!(
        got.flaws[1].to_string(),
        "Bo is described with Ana, Cy: say only who Bo is, what Bo wants and how Bo talks"
    );
    let (draft, left_out) = salvage(&got, &b).expect("each keeps its own part");
    let identities: Vec<&str> = draft.personas.iter().map(|p| p.identity.as_str()).collect();
    assert_eq!(
        identities,
        ["Ana wants early hours.", "Bo wants late hours.", "Cy wants lower rent."]
    );
    assert!(left_out.is_empty());
}

#[test]
fn two_identities_one_template_apart_are_alike() {
    let mut v = three();
    for (i, n) in ["Ana", "Bo", "Cy"].iter().enumerate() {
        v["personas"][i]["identity"] = format!("{n} has lived on this street for years and wants it to stay quiet.").into();
    }
    let flaws = read(&v.to_string(), &brief("English")).flaws;
    assert!(
        matches!(flaws.as_slice(), [Cast::Alike { at: 1, field: f1, .. }, Cast::Alike { at: 2, .. }] if f1 == "identity"),
        "{flaws:?}"
    );
}

#[test]
fn a_way_of_talking_that_names_another_persona_is_theirs() {
    let mut v = three();
    v["personas"][0]["communication_style"] = "Ana is blunt, while Bo is gentle.".into();
    v["personas"][1]["identity"] = "Ana wants the ovens on at four.".into();
    let got = read(&v.to_string(), &brief("English"));
    let crowded: Vec<usize> = got
        .flaws
        .iter()
        .filter(|f| matches!(f, Cast::Crowded { .. }))
        .filter_map(Cast::persona)
        .collect();
    assert_eq!(crowded, [0, 1], "{:?}", got.flaws);
    v["personas"][2]["identity"] = "Cy rents the shop to Ana and knows her since school.".into();
    assert!(
        read(&v.to_string(), &brief("English")).flaws.iter().all(|f| f.persona() != Some(2)),
        "Cy may know Ana"
    );
}

#[test]
fn an_identity_about_another_personas_title_is_theirs_unless_it_is_its_own_too() {
    let mut v = three();
    // The 1.5B's draft: another's title as the subject, its own nowhere.
    v["personas"][1]["identity"] = "Baker is committed to fresh bread every morning.".into();
    let got = read(&v.to_string(), &brief("English"));
    assert_eq!(
        got.flaws.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["Bo is described with Baker: say only who Bo is, what Bo wants and how Bo talks"]
    );
    // Knowing the baker, lower case or with its own name, is no description.
    for own in [
        "Bo has bought from the baker for years and wants bread after his night shift.",
        "Bo wants the Baker to open later, after his night shift.",
        "A Regular who wants the Baker to open later.",
    ] {
        v["personas"][1]["identity"] = own.into();
        let flaws = read(&v.to_string(), &brief("English")).flaws;
        assert!(flaws.is_empty(), "{own}: {flaws:?}");
    }
    // Two of one title may talk of each other's kind.
    v["personas"][2]["title"] = "Regular".into();
    v["personas"][1]["identity"] = "Regular since the shop opened; wants the rye back.".into();
    assert!(read(&v.to_string(), &brief("English")).flaws.is_empty());
}

#[test]
fn a_name_is_mentioned_as_a_word() {
    assert!(mentions("Bo said no.", "Bo") && mentions("(Bo)", "Bo") && mentions("李华说", "李华"));
    assert!(!mentions("Bought the shop.", "Bo") && !mentions("Bobo", "Bo") && !mentions("x", ""));
}

#[test]
fn two_personas_of_one_first_name_share_a_name_in_the_room() {
    let mut v = three();
    v["personas"][0]["name"] = "Jane Doe".into();
    v["personas"][2]["name"] = "Jane Smith".into();
    assert_eq!(
        read(&v.to_string(), &brief("English")).flaws,
        vec![Cast::SameName {
            at: 2,
            name: "Jane".into()
        }]
    );
}

#[test]
fn an_honorific_or_an_initial_is_no_sentence_and_no_first_name() {
    let mut v = three();
    v["personas"][0]["name"] = "Dr. Amara Okafor".into();
    v["personas"][1]["name"] = "Dr. Jun Park".into();
    v["personas"][2]["name"] = "J. R. Moss".into();
    assert_eq!(read(&v.to_string(), &brief("English")).flaws, vec![]);
    v["personas"][2]["name"] = "Tomás is a boat builder.".into();
    assert!(matches!(
        read(&v.to_string(), &brief("English")).flaws.as_slice(),
        [Cast::NotAName { at: 2, .. }]
    ));
}

#[test]
fn a_name_that_is_also_the_title_says_both_fields() {
    let mut v = three();
    // The 1.5B's Chinese draft: the name again as the title.
    v["personas"][0]["name"] = "李明".into();
    v["personas"][0]["title"] = "李明".into();
    v["personas"][1]["name"] = "Ferry User".into();
    v["personas"][1]["title"] = "ferry user".into();
    let said: Vec<String> = read(&v.to_string(), &brief("English"))
        .flaws
        .iter()
        .map(|f| f.say(Lang::Zh))
        .collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("“李明”既是 `name` 又是 `title`"), "{said:?}");
    let flaws = read(&v.to_string(), &brief("English")).flaws;
    assert!(matches!(flaws[1], Cast::NameIsTitle { at: 1, .. }), "{flaws:?}");
}

#[test]
fn one_title_is_no_flaw_and_a_surname_alone_is_the_whole_name() {
    let mut v = three();
    for i in 0..3 {
        v["personas"][i]["title"] = "Resident".into();
    }
    v["personas"][0]["name"] = "Dr. Johnson".into();
    v["personas"][1]["name"] = "Mrs. Johnson".into();
    assert_eq!(
        read(&v.to_string(), &brief("English")).flaws,
        vec![],
        "two residents who want different things"
    );
}

#[test]
fn a_cited_line_about_someone_else_of_the_cast_is_left_out() {
    let mut b = brief("English");
    b.sources = Sources::new(&[(
        "notes.md".into(),
        "Interviews\nAna, baker\n\"I start at four.\"\nBo, nurse\n\"The shop is shut after my shift.\"".into(),
    )]);
    let mut v = three();
    v["personas"][0]["lines"] = serde_json::json!([1, 2, 3, 4, 5]);
    v["personas"][1]["lines"] = serde_json::json!([5]);
    v["personas"][2]["lines"] = serde_json::json!([1]);
    let got = read(&v.to_string(), &b);
    let lines: Vec<&[u32]> = got.draft.personas.iter().map(|p| p.lines.as_slice()).collect();
    assert_eq!(
        lines,
        [&[1, 2, 3][..], &[5], &[1]],
        "Bo's answer is Bo's; Ana keeps the header and her own"
    );
}
