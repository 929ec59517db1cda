//! What a `json_schema` may cost (JSONOUT-4, JSONOUT-5), judged before anything compiles or
//! validates it: its serialized size, its nesting, its references, and an upper bound on the
//! schema evaluations one instance location can trigger.
//!
//! Evaluation cost is what an attacker controls: `allOf` / `$ref` fan-out multiplies the
//! subschemas applied at one location (eight references per level cost 8^depth), and
//! applicators that step into children (`items`, `properties`, …) can multiply again at every
//! level of the instance. The bound is computed on a graph of the schema's subschemas:
//!
//! - in place: `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`, `dependentSchemas`,
//!   schema-valued `dependencies` and every reference (`$ref`, `$dynamicRef`, `$recursiveRef`)
//!   apply at the same instance location. An in-place cycle has no bound and is refused.
//! - children: `properties` (per name), `prefixItems` / array `items` (per index),
//!   `patternProperties`, `additionalProperties`, `propertyNames`, `unevaluatedProperties`,
//!   `items`, `additionalItems`, `contains`, `unevaluatedItems` apply one level down.
//!
//! Level by level (at most [`LEVELS`], serde_json's parse depth), each subschema gets the number
//! of times it can apply to one instance location at that depth: the in-place closure is
//! summed, and the next level takes, per subschema, the most that one child can receive (an
//! array element or an object member, one property name). A level's cost is the weighted count
//! of keywords evaluated, `enum` / `const` values counted one by one. The largest level cost is
//! the `evaluations` limit; the levels are kept so that the output actually produced can be
//! costed before it is validated ([`SchemaCost::instance_cost`]).
//!
//! References are resolved conservatively, within the document only: a JSON Pointer fragment
//! against the document and every embedded resource (`$id` / `id`), an anchor against every
//! `$anchor`, `$dynamicAnchor` and `#name` id of that name, `$recursiveRef` against every
//! resource and `$recursiveAnchor`. Every candidate is counted, so the bound never counts less
//! than what `jsonschema` evaluates. A reference to another document is refused: the adapter
//! retrieves nothing, and an unknown target cannot be costed.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Largest `json_schema` accepted, serialized (bytes).
pub const MAX_BYTES: u64 = 64 * 1024;
/// Deepest nesting of objects and arrays in a `json_schema` document.
pub const MAX_DEPTH: u64 = 64;
/// Most reference keywords (`$ref`, `$dynamicRef`, `$recursiveRef`) in a `json_schema`.
pub const MAX_REFS: u64 = 256;
/// Most schema evaluations (keywords, `enum` / `const` values one by one) one instance location
/// may trigger, references and in-place applicators followed.
pub const MAX_EVALUATIONS: u64 = 4096;
/// Levels of an instance that are costed: serde_json parses at most 128 nested values.
pub const LEVELS: usize = 129;

/// A limit a `json_schema` goes past (JSONOUT-4), named as the contract names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Exceeded {
    /// The limit: `bytes`, `depth`, `refs`, `ref_target` or `evaluations`.
    pub name: &'static str,
    /// What the schema has: a count, `None` when unbounded (an in-place cycle).
    pub count: Option<u64>,
    /// `ref_target`: the reference refused.
    pub reference: Option<String>,
    /// The limit's value (`None` for `ref_target`, a rule rather than a number).
    pub max: Option<u64>,
    /// The whole sentence.
    pub message: String,
}

impl Exceeded {
    fn over(name: &'static str, count: Option<u64>, max: u64, what: &str) -> Self {
        Self {
            message: format!("json_schema {what}, over the `{name}` limit of {max}"),
            name,
            count,
            reference: None,
            max: Some(max),
        }
    }

    /// What the schema has, as the error's `value`: the count, `"unbounded"`, or the
    /// reference refused.
    #[must_use]
    pub fn value(&self) -> Value {
        match (&self.reference, self.count) {
            (Some(r), _) => r.as_str().into(),
            (None, Some(c)) => c.into(),
            (None, None) => "unbounded".into(),
        }
    }
}

/// The evaluation bound of an accepted schema, per instance level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaCost {
    /// `levels[k]`: most evaluations one instance location at depth `k` may trigger.
    pub levels: Vec<u64>,
}

impl SchemaCost {
    /// The most evaluations validating `instance` may take: each of its values costed at its
    /// depth's level.
    #[must_use]
    pub fn instance_cost(&self, instance: &Value) -> u64 {
        let mut total = 0u64;
        let mut stack = vec![(instance, 0usize)];
        while let Some((v, depth)) = stack.pop() {
            let level = self.levels.get(depth).copied().unwrap_or(0);
            total = total.saturating_add(level);
            match v {
                Value::Array(a) => stack.extend(a.iter().map(|c| (c, depth + 1))),
                // A member's key is validated too (`propertyNames`): counted with its value.
                Value::Object(m) => stack.extend(m.values().map(|c| (c, depth + 1))),
                _ => {}
            }
        }
        total
    }
}

/// JSONOUT-4: measures `schema` against every limit, the cheap ones first; nothing here
/// allocates in proportion to a refused schema.
pub fn measure(schema: &Value) -> Result<SchemaCost, Exceeded> {
    let bytes = serialized_len(schema);
    if bytes > MAX_BYTES {
        return Err(Exceeded::over(
            "bytes",
            Some(bytes),
            MAX_BYTES,
            &format!("is {bytes} bytes serialized"),
        ));
    }
    let depth = nesting(schema);
    if depth > MAX_DEPTH {
        return Err(Exceeded::over(
            "depth",
            Some(depth),
            MAX_DEPTH,
            &format!("nests objects and arrays {depth} levels deep"),
        ));
    }
    let graph = Graph::build(schema)?;
    graph.levels()
}

/// The compact serialization's length, counted without writing it anywhere.
fn serialized_len(v: &Value) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 = self.0.saturating_add(b.len() as u64);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    match serde_json::to_writer(&mut c, v) {
        Ok(()) => c.0,
        Err(_) => u64::MAX,
    }
}

/// Nesting of objects and arrays (a scalar is 0), iteratively.
fn nesting(v: &Value) -> u64 {
    let mut deepest = 0u64;
    let mut stack = vec![(v, 0u64)];
    while let Some((v, d)) = stack.pop() {
        let kids: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(kids.map(|c| (c, d + 1)));
    }
    deepest
}

type Id = usize;

/// One subschema: its own evaluations and its edges.
#[derive(Debug, Default)]
struct Node {
    own: u64,
    in_place: Vec<Id>,
    /// `properties`: (name, child).
    named: Vec<(String, Id)>,
    /// Any object member.
    members: Vec<Id>,
    /// `prefixItems` / array-form `items`: (index, child).
    indexed: Vec<(usize, Id)>,
    /// Any array element.
    elements: Vec<Id>,
}

/// The subschema graph of one document.
struct Graph<'a> {
    root: &'a Value,
    /// Resource roots (`$id` / `id` that are not plain fragments) and the document.
    resources: Vec<&'a Value>,
    /// Objects carrying an anchor, by name.
    anchors: HashMap<String, Vec<&'a Value>>,
    /// Objects with `$recursiveAnchor: true`.
    recursive: Vec<&'a Value>,
    ids: HashMap<*const Value, Id>,
    nodes: Vec<Node>,
    refs: u64,
}

impl<'a> Graph<'a> {
    fn build(root: &'a Value) -> Result<Self, Exceeded> {
        let mut g = Graph {
            root,
            resources: vec![root],
            anchors: HashMap::new(),
            recursive: Vec::new(),
            ids: HashMap::new(),
            nodes: Vec::new(),
            refs: 0,
        };
        g.index(root);
        let mut todo = vec![root];
        g.id_of(root, &mut todo);
        while let Some(v) = todo.pop() {
            g.expand(v, &mut todo)?;
        }
        if g.refs > MAX_REFS {
            return Err(Exceeded::over(
                "refs",
                Some(g.refs),
                MAX_REFS,
                &format!(
                    "has {} reference keywords ($ref, $dynamicRef, $recursiveRef)",
                    g.refs
                ),
            ));
        }
        Ok(g)
    }

    /// Every object in the document that can be a reference target by name.
    fn index(&mut self, doc: &'a Value) {
        let mut stack = vec![doc];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    for key in ["$id", "id"] {
                        if let Some(Value::String(id)) = m.get(key) {
                            match id.split_once('#') {
                                Some((base, name)) if !name.is_empty() => {
                                    self.anchor(name, v);
                                    if !base.is_empty() {
                                        self.resources.push(v);
                                    }
                                }
                                _ => self.resources.push(v),
                            }
                        }
                    }
                    for key in ["$anchor", "$dynamicAnchor"] {
                        if let Some(Value::String(name)) = m.get(key) {
                            self.anchor(name, v);
                        }
                    }
                    if m.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
                        self.recursive.push(v);
                    }
                    stack.extend(m.values());
                }
                Value::Array(a) => stack.extend(a.iter()),
                _ => {}
            }
        }
    }

    fn anchor(&mut self, name: &str, v: &'a Value) {
        self.anchors.entry(name.to_owned()).or_default().push(v);
    }

    /// The node of a subschema, created (and queued for expansion) on first sight.
    fn id_of(&mut self, v: &'a Value, todo: &mut Vec<&'a Value>) -> Id {
        let key: *const Value = v;
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.ids.insert(key, id);
        todo.push(v);
        id
    }

    fn expand(&mut self, v: &'a Value, todo: &mut Vec<&'a Value>) -> Result<(), Exceeded> {
        let key: *const Value = v;
        let id = self.ids[&key];
        let Value::Object(m) = v else {
            self.nodes[id].own = 1;
            return Ok(());
        };
        let mut node = Node {
            own: own_cost(m),
            ..Node::default()
        };
        for (k, sub) in m {
            match (k.as_str(), sub) {
                ("allOf" | "anyOf" | "oneOf", Value::Array(a)) => {
                    for s in a {
                        node.in_place.push(self.id_of(s, todo));
                    }
                }
                ("not" | "if" | "then" | "else", s) => node.in_place.push(self.id_of(s, todo)),
                ("dependentSchemas" | "dependencies", Value::Object(d)) => {
                    for s in d.values().filter(|s| s.is_object() || s.is_boolean()) {
                        node.in_place.push(self.id_of(s, todo));
                    }
                }
                ("$ref" | "$dynamicRef" | "$recursiveRef", Value::String(r)) => {
                    self.refs += 1;
                    if self.refs > MAX_REFS {
                        // Refused once built; counted to the end to say how many.
                        continue;
                    }
                    for t in self.targets(k, r)? {
                        node.in_place.push(self.id_of(t, todo));
                    }
                }
                ("properties", Value::Object(p)) => {
                    for (name, s) in p {
                        node.named.push((name.clone(), self.id_of(s, todo)));
                    }
                }
                ("patternProperties", Value::Object(p)) => {
                    for s in p.values() {
                        node.members.push(self.id_of(s, todo));
                    }
                }
                (
                    "additionalProperties" | "propertyNames" | "unevaluatedProperties",
                    s @ (Value::Object(_) | Value::Bool(_)),
                ) => node.members.push(self.id_of(s, todo)),
                ("prefixItems" | "items", Value::Array(a)) => {
                    for (i, s) in a.iter().enumerate() {
                        node.indexed.push((i, self.id_of(s, todo)));
                    }
                }
                (
                    "items" | "additionalItems" | "contains" | "unevaluatedItems",
                    s @ (Value::Object(_) | Value::Bool(_)),
                ) => node.elements.push(self.id_of(s, todo)),
                // Not evaluated at this location, but a place references may point to.
                ("$defs" | "definitions", Value::Object(d)) => {
                    for s in d.values() {
                        self.id_of(s, todo);
                    }
                }
                _ => {}
            }
        }
        self.nodes[id] = node;
        Ok(())
    }

    /// Every place in the document a reference may resolve to.
    fn targets(&self, keyword: &str, r: &str) -> Result<Vec<&'a Value>, Exceeded> {
        let Some(fragment) = r.strip_prefix('#') else {
            return Err(Exceeded {
                name: "ref_target",
                count: None,
                reference: Some(r.to_owned()),
                max: None,
                message: format!(
                    "json_schema {keyword} {r:?} names another document: the `ref_target` \
                     limit allows only places in the schema itself (#, #/pointer, #anchor)"
                ),
            });
        };
        let fragment = percent_decode(fragment);
        let mut out = Vec::new();
        if keyword == "$recursiveRef" {
            out.extend(self.resources.iter().copied());
            out.extend(self.recursive.iter().copied());
        }
        if fragment.is_empty() || fragment.starts_with('/') {
            for base in &self.resources {
                if let Some(t) = base.pointer(&fragment) {
                    out.push(t);
                }
            }
        } else if let Some(named) = self.anchors.get(&fragment) {
            out.extend(named.iter().copied());
        }
        Ok(out)
    }

    /// Per-level costs; refuses an in-place cycle or a level over [`MAX_EVALUATIONS`].
    ///
    /// `p[n]` is the most one instance location `depth` levels below a location where `n`
    /// applies can cost: at depth 0 the in-place closure of `n`; below, the largest over the
    /// choices of one child (one property name or another member; one index or another
    /// element) of the children's costs one level up, summed over the closure.
    fn levels(&self) -> Result<SchemaCost, Exceeded> {
        let order = self.topological()?;
        let n = self.nodes.len();
        let Some(&root) = self.ids.get(&std::ptr::from_ref(self.root)) else {
            return Ok(SchemaCost { levels: Vec::new() });
        };
        // Depth 0: children before parents.
        let mut p = vec![0u64; n];
        for &id in order.iter().rev() {
            let node = &self.nodes[id];
            p[id] = node
                .in_place
                .iter()
                .fold(node.own, |acc, &c| acc.saturating_add(p[c]));
        }
        let mut levels = Vec::new();
        for depth in 0..LEVELS {
            let cost = p[root];
            if cost == 0 {
                break;
            }
            if cost > MAX_EVALUATIONS {
                let at = if depth == 0 {
                    "at the top".to_owned()
                } else {
                    format!("{depth} levels into the instance")
                };
                return Err(Exceeded::over(
                    "evaluations",
                    Some(cost),
                    MAX_EVALUATIONS,
                    &format!(
                        "may take {cost} evaluations at one instance location {at} \
                         (references and applicators multiply)"
                    ),
                ));
            }
            levels.push(cost);
            p = self.one_level_down(&order, &p);
        }
        Ok(SchemaCost { levels })
    }

    fn one_level_down(&self, order: &[Id], prev: &[u64]) -> Vec<u64> {
        #[derive(Default, Clone)]
        struct Sums<'s> {
            members: u64,
            elements: u64,
            named: HashMap<&'s str, u64>,
            indexed: HashMap<usize, u64>,
        }
        let add = |a: &mut u64, b: u64| *a = a.saturating_add(b);
        let n = self.nodes.len();
        let mut sums: Vec<Sums<'_>> = vec![Sums::default(); n];
        let mut next = vec![0u64; n];
        for &id in order.iter().rev() {
            let node = &self.nodes[id];
            let mut s = Sums::default();
            for &c in &node.members {
                add(&mut s.members, prev[c]);
            }
            for &c in &node.elements {
                add(&mut s.elements, prev[c]);
            }
            for (name, c) in &node.named {
                add(s.named.entry(name.as_str()).or_default(), prev[*c]);
            }
            for (i, c) in &node.indexed {
                add(s.indexed.entry(*i).or_default(), prev[*c]);
            }
            for &c in &node.in_place {
                let k = &sums[c];
                add(&mut s.members, k.members);
                add(&mut s.elements, k.elements);
                for (name, x) in &k.named {
                    add(s.named.entry(name).or_default(), *x);
                }
                for (i, x) in &k.indexed {
                    add(s.indexed.entry(*i).or_default(), *x);
                }
            }
            let member = s
                .members
                .saturating_add(s.named.values().copied().max().unwrap_or(0));
            let element = s
                .elements
                .saturating_add(s.indexed.values().copied().max().unwrap_or(0));
            next[id] = member.max(element);
            sums[id] = s;
        }
        next
    }

    /// The nodes in an order where every in-place parent comes before its children; an
    /// in-place cycle is refused (evaluating it never ends, whatever the instance).
    fn topological(&self) -> Result<Vec<Id>, Exceeded> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let n = self.nodes.len();
        let mut mark = vec![Mark::New; n];
        let mut post = Vec::with_capacity(n);
        for start in 0..n {
            if mark[start] != Mark::New {
                continue;
            }
            let mut stack = vec![(start, 0usize)];
            mark[start] = Mark::Open;
            while let Some((id, i)) = stack.pop() {
                if let Some(&c) = self.nodes[id].in_place.get(i) {
                    stack.push((id, i + 1));
                    match mark[c] {
                        Mark::New => {
                            mark[c] = Mark::Open;
                            stack.push((c, 0));
                        }
                        Mark::Open => {
                            return Err(Exceeded::over(
                                "evaluations",
                                None,
                                MAX_EVALUATIONS,
                                "references itself without stepping into the instance (an \
                                 in-place $ref cycle): its evaluations are unbounded",
                            ));
                        }
                        Mark::Done => {}
                    }
                } else {
                    mark[id] = Mark::Done;
                    post.push(id);
                }
            }
        }
        post.reverse();
        Ok(post)
    }
}

/// Keywords evaluated at a subschema, `enum` / `const` values one by one.
fn own_cost(m: &Map<String, Value>) -> u64 {
    let mut cost = (m.len() as u64).max(1);
    for key in ["enum", "const"] {
        if let Some(v) = m.get(key) {
            cost = cost.saturating_add(values_in(v));
        }
    }
    cost
}

/// JSON values in `v`, itself included.
fn values_in(v: &Value) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    count
}

/// RFC 3986 percent-decoding of a URI fragment (a JSON Pointer in a `$ref` is written so).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(h) = b.get(i + 1..i + 3)
            && let Ok(h) = std::str::from_utf8(h)
            && let Ok(x) = u8::from_str_radix(h, 16)
        {
            out.push(x);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[path = "schema_cost_tests.rs"]
pub(crate) mod tests;
