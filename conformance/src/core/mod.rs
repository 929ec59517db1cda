//! The runner core both gates share, and which knows neither gate's catalogue: the case type
//! ([`case`]), the scheduler ([`schedule`]), the raw stdio client ([`client`]) and the process
//! containment under it ([`process`], [`exits`]), the cross-cutting engine ([`watch`]), how cases' peers started ([`starts`]), grading
//! ([`verdict`], [`baseline`], [`coverage`]), the report model and writers ([`report`]) and the
//! command-line pieces both binaries use ([`cli`]).

pub mod baseline;
pub mod blocked;
pub mod bounds;
pub mod case;
pub mod checks;
pub mod cli;
pub mod client;
pub mod coverage;
pub mod deadline;
pub mod exits;
pub mod http;
pub mod model;
pub mod process;
pub mod report;
pub mod schedule;
pub mod select;
pub mod settled;
pub mod starts;
pub mod transcript;
pub mod verdict;
pub mod watch;
