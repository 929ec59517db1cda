//! Protocol-neutral scheduling (`--jobs`): runs one task per index under a concurrency limit,
//! in a given start order, each in a task of its own so a panic is contained. Both runners'
//! schedulers (MCP's [`crate::schedule`], ACP's `crate::acp::schedule`) start their cases here.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// Runs `task(i)` for every `i` of `order` (started in that order), at most `permits` at once
/// (the permits are shared, so several phases can use one limit). Returns the results indexed by
/// `i` in a vector of `len`; an index whose task panicked (a runner bug) stays `None`, and the
/// panic is reported on stderr with `runner` as the prefix.
pub async fn run_indexed<R, F, Fut>(
    runner: &str,
    len: usize,
    order: Vec<usize>,
    permits: Arc<Semaphore>,
    task: F,
) -> Vec<Option<R>>
where
    R: Send + 'static,
    F: Fn(usize) -> Fut,
    Fut: Future<Output = R> + Send + 'static,
{
    let mut out: Vec<Option<R>> = (0..len).map(|_| None).collect();
    let mut set = JoinSet::new();
    for index in order {
        let permits = permits.clone();
        let fut = task(index);
        set.spawn(async move {
            // A closed semaphore cannot happen (it is never closed); run anyway if it did.
            let _permit = permits.acquire_owned().await.ok();
            (index, fut.await)
        });
    }
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((i, r)) => {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(r);
                }
            }
            Err(e) => {
                // Its index is unknown here: the caller fills the hole.
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "{runner}: a case task failed: {e}"
                );
            }
        }
    }
    out
}
