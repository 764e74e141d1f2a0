//! `rein-sim explain` on a real WordCount history with a small decision log written for it.

use rein_sim::explain;
use rein_sim::jhist;

const WORDCOUNT_JHIST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wordcount-late.jhist");

/// A log naming the history's first map: a copy at its start + 1 s that won, saving 5 s.
fn log_for(h: &jhist::JobHistory, shadow: bool) -> String {
    let t = h.maps().next().unwrap();
    let task = format!("m_{}", t.id.rsplit('_').next().unwrap());
    let a = &t.attempts[0];
    let at = a.start_ms.unwrap() + 1000;
    let end = t.successful().filter_map(|a| a.finish_ms).min().unwrap();
    let mode = if shadow { "shadow" } else { "act" };
    let mut lines = vec![
        format!(r#"{{"record":"job","job":"{}","policy":"late","mode":"{mode}","abi":4}}"#, h.job_id),
        format!(
            r#"{{"record":"decision","id":1,"at_ms":{at},"action":"copy","task":"{task}","attempt":0,"node":"{}","policy":"late","shadow":{shadow},"copies":1,"avoid_nodes":[],"prefer_rack":null,"original_est_end_ms":{},"copy_est_s":0.5,"reason":{{"kind":"late","time_left_s":9}},"text":"LATE §4: longest estimated time left 9.0 s"}}"#,
            a.node.as_deref().unwrap_or(""),
            at + 9000
        ),
    ];
    if shadow {
        lines.push(format!(r#"{{"record":"outcome","decision":1,"at_ms":{end},"action":"copy","task":"{task}","shadow":true,"task_end_ms":{end},"winner":0,"result":"not-acted","copy_est_end_ms":{},"would_save_s":1}}"#, at + 500));
        lines.push(format!(r#"{{"record":"summary","at_ms":{end},"policy":"late","shadow":true,"actions":{{"copy":1}},"copies_asked":1,"copies_launched":0,"copies_won":0,"copy_container_s":0,"estimated_job_s_rein_would_save":0,"saved_per_container_s":null}}"#));
    } else {
        lines.push(format!(r#"{{"record":"outcome","decision":1,"at_ms":{end},"action":"copy","task":"{task}","attempt":1,"node":"x:1","result":"won","container_s":4,"task_end_ms":{end},"original_est_end_ms":{},"saved_s":5}}"#, end + 5000));
        lines.push(format!(r#"{{"record":"summary","at_ms":{end},"policy":"late","shadow":false,"actions":{{"copy":1}},"copies_asked":1,"copies_launched":1,"copies_won":1,"copy_container_s":4,"estimated_job_s_saved":5,"saved_per_container_s":1.25}}"#));
    }
    lines.join("\n") + "\n"
}

#[test]
fn explain_prints_the_timeline_the_outcome_and_the_return() {
    let h = jhist::read(std::path::Path::new(WORDCOUNT_JHIST)).unwrap();
    let log = explain::parse_log(&log_for(&h, false)).unwrap();
    let text = explain::text(&log, &h);
    assert!(text.starts_with(&format!("job {}", h.job_id)), "{text}");
    assert!(text.contains("rein #1 copy m_000000 attempt 0 on "), "{text}");
    assert!(text.contains("LATE §4: longest estimated time left 9.0 s"), "{text}");
    assert!(text.contains("-> #1 copy m_000000: won, 4.0 container-s, saved 5.0 s"), "{text}");
    assert!(text.contains("start    attempt_"), "{text}");
    assert!(text.contains("return: job seconds saved per container-second 1.25"), "{text}");
    // Decisions sit in time order among the history's events.
    let at = text.find("rein #1").unwrap();
    assert!(text[..at].contains("start    attempt_"), "the attempt's start comes first");

    let svg = explain::svg(&log, &h);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("attempts per node") && svg.contains("stroke-dasharray"), "a decision mark");
    for node in h.tasks.iter().flat_map(|t| &t.attempts).filter_map(|a| a.node.as_deref()) {
        assert!(svg.contains(node), "row for {node}");
    }
}

#[test]
fn explain_estimates_what_a_shadow_run_would_have_changed() {
    let h = jhist::read(std::path::Path::new(WORDCOUNT_JHIST)).unwrap();
    let log = explain::parse_log(&log_for(&h, true)).unwrap();
    let text = explain::text(&log, &h);
    assert!(text.contains("rein in shadow mode"), "{text}");
    assert!(text.contains("rein #1 copy (shadow) m_000000"), "{text}");
    assert!(text.contains("a copy started now ends ~"), "{text}");
    assert!(text.contains("with the history: rein would have ended the job"), "{text}");
}

#[test]
fn a_broken_log_line_is_named() {
    let err = explain::parse_log("{\"record\":\"job\"}\nnot json\n").unwrap_err();
    assert!(err.starts_with("line 2:"), "{err}");
}
