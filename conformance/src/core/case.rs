//! The one case type of both gates: data (stable slug id, the rule it checks, its level, one
//! line of description, what it needs, its timeout factor and declared cost) plus a check
//! function, generic over the [`Gate`] that says what a check gets and how levels are given.
//! Cases are written with the one `case!` macro (defined here, used by every catalogue).

use std::fmt;
use std::time::Duration;

use crate::core::model::{CheckFuture, Level};
use crate::core::report::ProfileName;

/// What a gate (MCP, ACP agent mode, ACP client mode) puts into the shared case type.
pub trait Gate: Sized + 'static {
    /// What a check function gets: the gate's case context.
    type Ctx: Send + 'static;
    /// A case's level: one [`Level`], or one per profile.
    type Levels: Copy + fmt::Debug + Send + Sync + 'static;
    /// What else a case of this gate carries (MCP: the tool family of a run case; ACP client
    /// mode: the scripted agent's scenario); `()` when nothing.
    type Variant: Copy + fmt::Debug + Send + Sync + 'static;
    /// The gate's profile type (which contract, or which side, is under test).
    type Profile: ProfileName + Send + Sync + 'static;

    /// The level of a case under `profile`; `None` when the case is not part of it.
    fn level(levels: &Self::Levels, profile: Self::Profile) -> Option<Level>;
}

/// A variant type with a "nothing else" value, usable in the `const` catalogue tables.
pub trait NoVariant: Sized {
    /// Nothing else.
    const NONE: Self;
}

impl<T> NoVariant for Option<T> {
    const NONE: Self = None;
}

impl NoVariant for () {
    const NONE: Self = ();
}

/// The variant of a case that carries nothing else ([`NoVariant::NONE`]).
#[must_use]
pub const fn no_variant<V: NoVariant>() -> V {
    V::NONE
}

/// What a case needs from the runner besides its check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A fresh peer process (or several) of its own.
    Server,
    /// Only the listings every case shares (MCP: tools, resources, initialize result): the case
    /// reads the shared discovery session and starts nothing (it "declares it can share").
    Discovery,
    /// A fresh server whose `claude` is fake-claude (`--drive-fake`, provider lifecycle).
    Fake,
    /// A cross-cutting rule ([`crate::core::watch`]): runs after every other case and grades
    /// what their exchanges showed.
    Crosscut,
    /// A cross-cutting rule that first probes a peer of its own (a call no other case may make):
    /// queued behind the parallel phase's cases, it grades once they have all finished
    /// ([`crate::core::schedule::Scope::settled`], which its check awaits between probe and
    /// grade), and before the [`Needs::Crosscut`] ones, so that they grade its exchanges too (a
    /// `--case` shard's probes are all the exchanges some rules see).
    CrosscutProbe,
}

impl Needs {
    /// Whether the case is a cross-cutting rule ([`Needs::Crosscut`] or
    /// [`Needs::CrosscutProbe`]): graded on every exchange, kept in every shard.
    #[must_use]
    pub fn crosscut(self) -> bool {
        matches!(self, Self::Crosscut | Self::CrosscutProbe)
    }
}

/// One case of a gate's catalogue: data plus a check function.
pub struct Case<G: Gate> {
    /// Stable slash-separated slug; its first segment is the section.
    pub id: &'static str,
    /// The contract id (`T2`, `META-WORK-5`), spec section or schema definition checked.
    pub requirement: &'static str,
    /// Its level (per profile where the gate has several).
    pub levels: G::Levels,
    /// One line saying what is checked.
    pub description: &'static str,
    /// What the case needs.
    pub needs: Needs,
    /// Timeout as a multiple of `--timeout-ms` (1 for most cases; long for run lifecycle).
    pub timeout_factor: u32,
    /// The case's declared cost in milliseconds: about what it takes against the reference
    /// target on an idle machine (`--jobs 1`), declared where it is well above its kind's
    /// ([`Case::cost`]). It orders the start (longest first), nothing else: never a bound.
    pub cost_ms: u32,
    /// Whether the case judges its peer's own lifecycle (stdin EOF, a signal, the exit): it runs
    /// in the scheduler's exclusive phase, with no other case (so no other instance of the
    /// peer) alive, since a peer sharing state with its twins (a lock file) may exit otherwise
    /// only when they do ([`crate::core::schedule`]).
    pub exclusive: bool,
    /// The check.
    pub check: fn(G::Ctx) -> CheckFuture,
    /// What else the gate's case carries.
    pub variant: G::Variant,
}

impl<G: Gate> Clone for Case<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Gate> Copy for Case<G> {}

impl<G: Gate> fmt::Debug for Case<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl<G: Gate> Case<G> {
    /// The section: the first segment of the id.
    #[must_use]
    pub fn section(&self) -> &'static str {
        self.id.split('/').next().unwrap_or(self.id)
    }

    /// The level under `profile` (`None`: not part of it).
    #[must_use]
    pub fn level(&self, profile: G::Profile) -> Option<Level> {
        G::level(&self.levels, profile)
    }

    /// The expected cost of the case, for the start order only: the declared
    /// [`Case::cost_ms`], else its kind's (a run through the fake, a fresh server, nothing).
    #[must_use]
    pub fn cost(&self) -> Duration {
        let ms = match (self.cost_ms, self.needs) {
            (0, Needs::Fake) => 400,
            (0, Needs::Server) => 200,
            (0, Needs::Discovery | Needs::Crosscut | Needs::CrosscutProbe) => 0,
            (declared, _) => declared,
        };
        Duration::from_millis(u64::from(ms))
    }

    /// The case's timeout for a base timeout.
    #[must_use]
    pub fn timeout(&self, base: Duration) -> Duration {
        base.saturating_mul(self.timeout_factor.max(1))
    }
}

/// Builds a [`Case`] from its data and a check call (the context is passed first, then the
/// bracketed arguments): `case!(ID, RULE, LEVELS, NEEDS, DESCRIPTION, check[args])`. Optional
/// tails: `, FACTOR` multiplies the timeout; `; cost_ms N` declares a case well above its
/// kind's cost (the start order only: [`Case::cost`]); `; variant EXPR` sets what else the
/// gate's case carries (default: [`no_variant`]); `; exclusive true` runs the case alone
/// ([`Case::exclusive`]).
macro_rules! case {
    ($id:literal, $req:expr, $levels:expr, $needs:ident, $desc:expr,
     $check:path [$($arg:expr),*] $(, $factor:expr)? $(; cost_ms $cost:expr)?
     $(; variant $variant:expr)? $(; exclusive $exclusive:literal)?) => {
        $crate::core::case::Case {
            id: $id,
            requirement: $req,
            levels: $levels,
            description: $desc,
            needs: $crate::core::case::Needs::$needs,
            timeout_factor: case!(@or 1 $(, $factor)?),
            cost_ms: case!(@or 0 $(, $cost)?),
            exclusive: case!(@or false $(, $exclusive)?),
            check: |ctx| Box::pin($check(ctx $(, $arg)*)),
            variant: case!(@or $crate::core::case::no_variant() $(, $variant)?),
        }
    };
    (@or $default:expr) => { $default };
    (@or $default:expr, $given:expr) => { $given };
}

pub(crate) use case;
