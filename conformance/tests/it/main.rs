//! Integration tests of the conformance runner: report writers against golden files, the
//! command line, grading of real third-party servers, and the default target end to end.

mod cli;
mod default_target;
mod docs;
mod golden;
mod real_servers;
mod support;
