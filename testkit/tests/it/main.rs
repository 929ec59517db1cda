//! Integration tests of testkit: the stand-in on its own (raw HTTP), and the REAL `claude`
//! 2.1.328 driven through it end to end (installed on first use by `testkit::prereq`; with
//! `CI=true` a missing CLI fails these tests instead of skipping them).

mod api_errors;
mod contract_ids;
mod max_turns;
mod module_cycles;
mod no_account;
mod prereq_gate;
mod resume;
mod slow_stream;
mod standin_http;
mod success;
mod support;
mod tools;
mod tracker_refs;
mod turns;
