use super::*;

#[test]
fn lines_are_messages_or_commands() {
    assert_eq!(parse_line("hello"), Line::Command(Command::Message { text: "hello".into() }));
    assert_eq!(
        parse_line("{not json"),
        Line::Command(Command::Message { text: "{not json".into() })
    );
    assert_eq!(parse_line(r#"{"type":"exit"}"#), Line::Command(Command::Exit));
    assert_eq!(
        parse_line(r#"{"type":"answer","request_id":"req-1","confirmed":false,"reason":"no"}"#),
        Line::Command(Command::Answer {
            request_id: "req-1".into(),
            confirmed: false,
            reason: Some("no".into()),
            extend: None
        })
    );
    assert!(matches!(parse_line(r#"{"type":"dance"}"#), Line::Invalid(_)));
    assert_eq!(
        parse_line(r#"{"type":"draft","text":"How do"}"#),
        Line::Command(Command::Draft { text: "How do".into() })
    );
}
