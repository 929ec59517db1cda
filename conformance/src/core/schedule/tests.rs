//! The scheduler's tests: phases, the probe barrier, retries and `--jobs`, on a gate whose
//! cases meet in a room.
use super::*;

#[test]
fn a_short_case_timeout_still_leaves_most_of_it_to_wait_with() {
    let now = Instant::now();
    for ms in [100, 300, 400, 1_000] {
        let timeout = Duration::from_millis(ms);
        let wait = wait_deadline(now + timeout, timeout);
        assert!(
            wait >= now + timeout * 3 / 4,
            "--timeout-ms {ms}: waits end {:?} after the start",
            wait.duration_since(now)
        );
        assert!(wait < now + timeout, "the margin is never zero");
    }
    let long = Duration::from_secs(10);
    assert_eq!(
        wait_deadline(now + long, long),
        now + long - WAIT_MARGIN,
        "long cases keep the full margin"
    );
}

#[test]
fn the_costliest_case_starts_first_and_ties_keep_catalogue_order() {
    assert_eq!(longest_first(&[1, 5, 3, 5, 0]), vec![1, 3, 2, 0, 4]);
    assert!(longest_first::<u32>(&[]).is_empty());
}

/// A gate whose cases pass only when another runs at the same time.
struct Meet;

/// How many cases are running, whether two ever ran at once, and a wake-up.
#[derive(Default)]
struct Room {
    inside: std::sync::atomic::AtomicUsize,
    /// Two cases were inside at once.
    met: AtomicBool,
    changed: tokio::sync::Notify,
    /// Runs of the flaky, failing and broken checks.
    flaky: std::sync::atomic::AtomicUsize,
    failing: std::sync::atomic::AtomicUsize,
    broken: std::sync::atomic::AtomicUsize,
    /// Each case's scope by id (for the probing case's barrier).
    scopes: Mutex<std::collections::HashMap<&'static str, Scope>>,
    /// Slow cases finished, and the most cases ever inside at once.
    done: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
    /// Runs of the counting probe.
    probes: std::sync::atomic::AtomicUsize,
}

/// A case's presence in the room, left when the case ends (also when it is aborted).
struct Present(Arc<Room>);

impl Drop for Present {
    fn drop(&mut self) {
        self.0.inside.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

#[derive(Debug, Clone, Copy, serde::Serialize)]
struct OneProfile;

impl crate::core::report::ProfileName for OneProfile {
    fn name(&self) -> &'static str {
        "one"
    }
}

impl Gate for Meet {
    type Ctx = Arc<Room>;
    type Levels = crate::core::model::Level;
    type Variant = ();
    type Profile = OneProfile;
    fn level(levels: &Self::Levels, _: Self::Profile) -> Option<crate::core::model::Level> {
        Some(*levels)
    }
}

struct MeetRunner(Arc<Room>);

impl Runner for MeetRunner {
    type Gate = Meet;
    fn name(&self) -> &'static str {
        "test"
    }
    fn peer(&self) -> &'static str {
        "peer"
    }
    fn timeout_expected(&self, _: Duration) -> String {
        "the other case at once".into()
    }
    fn context(&self, case: &Case<Meet>, scope: Scope) -> Result<Made<Meet>, Check> {
        self.0
            .scopes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(case.id, scope);
        Ok((self.0.clone(), Box::new(())))
    }
}

async fn meet(room: Arc<Room>) -> crate::core::model::CheckResult {
    if room.inside.fetch_add(1, Ordering::SeqCst) >= 1 {
        room.met.store(true, Ordering::SeqCst);
    }
    room.changed.notify_waiters();
    let _present = Present(room.clone());
    loop {
        let changed = room.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        if room.met.load(Ordering::SeqCst) {
            return Ok(Check::Pass);
        }
        changed.await;
    }
}

/// An exclusive case: passes when no other case is inside as it enters, nor enters while
/// it waits (200 ms at most) for one.
async fn alone(room: Arc<Room>) -> crate::core::model::CheckResult {
    let changed = room.changed.notified();
    tokio::pin!(changed);
    changed.as_mut().enable();
    let before = room.inside.fetch_add(1, Ordering::SeqCst);
    let _present = Present(room.clone());
    let _ = tokio::time::timeout(Duration::from_millis(200), changed).await;
    let now = room.inside.load(Ordering::SeqCst);
    if before == 0 && now == 1 {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "alone",
            format!("{before} then {} others", now - 1),
        ))
    }
}

/// A runner error on its first run only.
async fn flaky(room: Arc<Room>) -> crate::core::model::CheckResult {
    if room.flaky.fetch_add(1, Ordering::SeqCst) == 0 {
        return Err(Check::Error("spawn failed".into()));
    }
    Ok(Check::Pass)
}

/// A failure on every run.
async fn failing(room: Arc<Room>) -> crate::core::model::CheckResult {
    room.failing.fetch_add(1, Ordering::SeqCst);
    Err(Check::fail("an answer", "none"))
}

/// A runner error on every run.
async fn broken(room: Arc<Room>) -> crate::core::model::CheckResult {
    room.broken.fetch_add(1, Ordering::SeqCst);
    Err(Check::Error("spawn failed".into()))
}

fn case(id: &'static str, check: fn(Arc<Room>) -> CheckFuture) -> Case<Meet> {
    Case::<Meet> {
        id,
        requirement: "r",
        levels: crate::core::model::Level::Must,
        description: "d",
        needs: Needs::Server,
        timeout_factor: 1,
        cost_ms: 0,
        exclusive: false,
        check,
        variant: (),
    }
}

fn run_in(
    room: &Arc<Room>,
    cases: Vec<Case<Meet>>,
    jobs: usize,
    progress: Option<mpsc::UnboundedSender<Ran<Meet>>>,
) -> Vec<Ran<Meet>> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(run_all(
        Arc::new(MeetRunner(room.clone())),
        cases,
        Settings {
            timeout: Duration::from_millis(500),
            jobs,
        },
        progress,
    ))
}

fn meeting(jobs: usize) -> Vec<Ran<Meet>> {
    let meets = |id| case(id, |b| Box::pin(meet(b)));
    run_in(
        &Arc::default(),
        vec![meets("a/one"), meets("a/two")],
        jobs,
        None,
    )
}

/// Enters the room, noting the most cases ever inside at once.
fn enter(room: &Arc<Room>) -> Present {
    let now = room.inside.fetch_add(1, Ordering::SeqCst) + 1;
    room.most.fetch_max(now, Ordering::SeqCst);
    Present(room.clone())
}

/// 100 ms inside, then counted done.
async fn slow(room: Arc<Room>) -> crate::core::model::CheckResult {
    let _present = enter(&room);
    tokio::time::sleep(Duration::from_millis(100)).await;
    room.done.fetch_add(1, Ordering::SeqCst);
    Ok(Check::Pass)
}

/// A probing cross-cutting case: its probe inside the room, then, past its barrier, a
/// grade that needs every slow case done. Fails with how many were done when it probed
/// when that was all of them at `--jobs` above 1 (its probe waited for the phase's end).
async fn probe(room: Arc<Room>) -> crate::core::model::CheckResult {
    let scope = room
        .scopes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get("p/probe")
        .cloned()
        .ok_or_else(|| Check::Error("no scope".into()))?;
    let probed_after = {
        let _present = enter(&room);
        room.done.load(Ordering::SeqCst)
    };
    scope.settled().await;
    let done = room.done.load(Ordering::SeqCst);
    if done == 2 {
        Ok(Check::Pass)
    } else {
        Err(Check::fail(
            "both slow cases done",
            format!("{done} done (probed after {probed_after})"),
        ))
    }
}

#[test]
fn a_probe_overlaps_its_phase_and_grades_after_it() {
    // GATE-LOAD-2: room for all three, the probe probes beside the slow cases and still
    // grades only once both are done; at --jobs 1 it waits its turn, one case at a time.
    for jobs in [3, 1] {
        let room: Arc<Room> = Arc::default();
        let mut p = case("p/probe", |b| Box::pin(probe(b)));
        p.needs = Needs::CrosscutProbe;
        let slows = |id| case(id, |b| Box::pin(slow(b)));
        let ran = run_in(&room, vec![p, slows("s/one"), slows("s/two")], jobs, None);
        assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
        // Never more than --jobs inside at once, the probe's probe included.
        assert!(
            room.most.load(Ordering::SeqCst) <= jobs,
            "jobs {jobs}: {ran:?}"
        );
        if jobs > 1 {
            // It started before the phase ended: no phase of its own.
            assert!(ran[0].started < ran[1].started + ran[1].duration, "{ran:?}");
        }
    }
}

/// A probing case that counts its runs and passes past its barrier.
async fn counting_probe(room: Arc<Room>) -> crate::core::model::CheckResult {
    let scope = room
        .scopes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get("p/counting")
        .cloned()
        .ok_or_else(|| Check::Error("no scope".into()))?;
    room.probes.fetch_add(1, Ordering::SeqCst);
    scope.settled().await;
    Ok(Check::Pass)
}

#[test]
fn a_probe_runs_again_after_its_phase_s_retries() {
    // GATE-LOAD-2/3: a case retried after the probe graded made exchanges the probe did
    // not see; the probe runs again after the retry, and only that run is reported.
    let room: Arc<Room> = Arc::default();
    let mut p = case("p/counting", |b| Box::pin(counting_probe(b)));
    p.needs = Needs::CrosscutProbe;
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ran = run_in(
        &room,
        vec![p, case("r/flaky", |b| Box::pin(flaky(b)))],
        2,
        Some(tx),
    );
    assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
    assert_eq!(room.probes.load(Ordering::SeqCst), 2);
    assert!(
        ran[0]
            .transcript
            .iter()
            .any(|e| e.line.contains("run again after its phase's retries")),
        "{ran:?}"
    );
    let mut shown = Vec::new();
    while let Ok(r) = rx.try_recv() {
        shown.push(r.case.id);
    }
    shown.sort_unstable();
    assert_eq!(shown, ["p/counting", "r/flaky"], "each case shown once");
}

#[test]
fn an_exclusive_case_runs_with_no_other_case_alive() {
    // GATE-LOAD-2: listed last and with room for all three at once, the exclusive case
    // runs alone, in its phase before the parallel one; the others still meet.
    let mut solo = case("x/alone", |b| Box::pin(alone(b)));
    solo.exclusive = true;
    let meets = |id| case(id, |b| Box::pin(meet(b)));
    let ran = run_in(
        &Arc::default(),
        vec![meets("a/one"), meets("a/two"), solo],
        3,
        None,
    );
    assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
    assert!(
        ran[0].started >= ran[2].started + ran[2].duration
            && ran[1].started >= ran[2].started + ran[2].duration,
        "{ran:?}"
    );
}

#[test]
fn a_runner_error_is_retried_once_and_a_failure_never() {
    // GATE-LOAD-3.
    let room: Arc<Room> = Arc::default();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ran = run_in(
        &room,
        vec![
            case("r/flaky", |b| Box::pin(flaky(b))),
            case("r/failing", |b| Box::pin(failing(b))),
            case("r/broken", |b| Box::pin(broken(b))),
        ],
        2,
        Some(tx),
    );
    assert_eq!(ran[0].check, Check::Pass, "{ran:?}");
    assert!(ran[1].check.is_fail(), "{ran:?}");
    assert!(matches!(ran[2].check, Check::Error(_)), "{ran:?}");
    let runs = |n: &std::sync::atomic::AtomicUsize| n.load(Ordering::SeqCst);
    assert_eq!(
        (runs(&room.flaky), runs(&room.failing), runs(&room.broken)),
        (2, 1, 2)
    );
    assert!(
        ran[0]
            .transcript
            .iter()
            .any(|e| e.line.contains("runner error (spawn failed)")),
        "{:?}",
        ran[0].transcript
    );
    // Progress shows each case once: the retry's result, never the first run's error.
    let mut shown = Vec::new();
    while let Ok(r) = rx.try_recv() {
        shown.push((r.case.id, matches!(r.check, Check::Error(_))));
    }
    shown.sort_unstable();
    assert_eq!(
        shown,
        [("r/broken", true), ("r/failing", false), ("r/flaky", false)]
    );
}

/// A runner error whenever another case runs beside it (a peer that starts in time only
/// alone): [`alone`]'s failure turned into the kit's own error.
async fn crowded(room: Arc<Room>) -> crate::core::model::CheckResult {
    match alone(room).await {
        Err(c) if c.is_fail() => Err(Check::Error("not answered under load".into())),
        other => other,
    }
}

#[test]
fn runner_errors_are_retried_one_at_a_time() {
    // GATE-LOAD-3: three cases that err only when crowded all err at --jobs 3; their
    // retries, run together again, would err again.
    let ran = run_in(
        &Arc::default(),
        vec![
            case("c/one", |b| Box::pin(crowded(b))),
            case("c/two", |b| Box::pin(crowded(b))),
            case("c/three", |b| Box::pin(crowded(b))),
        ],
        3,
        None,
    );
    assert!(ran.iter().all(|r| r.check == Check::Pass), "{ran:?}");
    assert!(
        ran.iter().all(|r| r
            .transcript
            .iter()
            .any(|e| e.line.contains("not answered under load"))),
        "each passed on its retry: {ran:?}"
    );
}

#[test]
fn jobs_is_how_many_cases_run_at_once() {
    let together = meeting(2);
    assert!(
        together.iter().all(|r| r.check == Check::Pass),
        "{together:?}"
    );
    // One at a time, neither meets the other: each ends at its timeout.
    let alone = meeting(1);
    assert!(
        alone.iter().all(|r| r.timed_out && r.check.is_fail()),
        "{alone:?}"
    );
}
