/// Runs the compiled schema (`CompiledSchema.shared`, from `LottieSchema.nodes`) over a JSON value.
///
/// - **Iterative**: every (instance, node) pair that descends into members or elements gets a frame on an
///   explicit stack; local nodes (that never descend) are checked in place, with a recursion bounded by
///   the schema's own nesting, never by the document's. Nothing recurses with the document's depth.
/// - **Two modes**: checking (`collecting == false`) stops a frame at its first failure and records
///   nothing; collecting records every failure with its path. A `oneOf`/`anyOf` then evaluates every
///   branch, keeps the failures of the branch that was most likely meant (see `BranchRank`) and drops the
///   others, so that a problem is reported where it is (`$.layers[0].ks.a.a`), not where a union begins.
/// - **Bounded**: collecting stops once `maxFailures` failures are certain, and never buffers more than
///   `failureCapacity` (failures of branches still being compared included).
struct SchemaEvaluator {
    /// A frame's scalar state (its instance is `instances[i]`: a frame itself holds no reference, so
    /// reading and writing it costs no reference counting).
    struct Frame {
        var node: Int32
        var pathCount: Int32
        /// The current op, counted from the node's first.
        var op: Int32 = 0
        /// Progress inside the op: the next member, element or branch, or the phase of a conditional.
        var step: Int32 = 0
        /// While a union, `not` or conditional of this frame runs: its state in `unions`.
        var union: Int32 = -1
        var valid = true
    }

    /// Book-keeping of a `oneOf`/`anyOf` while its branches run (and of a `not` or `if`: where the
    /// failures of its subschema start).
    struct UnionState {
        var failureStart = 0
        var branchStart = 0
        var evidenceStart = 0
        var droppedStart = 0
        var matches = 0
        var best: BranchRank?
        /// Running in the checking mode first (see `runUnion`).
        var checkingFirst = false
        /// Checked first and found failing (counted in `precheckNesting` until it concludes).
        var prechecked = false
        /// For a `not` or `if`, or a union checked first, running in the checking mode: the mode to restore.
        var savedCollecting = false
    }

    /// How many unions that failed their check may each be checked again inside one another, while
    /// collecting, before unions are collected without a check first (bounds that work to 8 times a walk).
    static let maxPrecheckNesting = 8

    let schema = CompiledSchema.shared
    /// Collecting (see above); switched off while a subschema whose failures never count runs in place.
    var collecting: Bool
    let maxFailures: Int
    let failureCapacity: Int
    private(set) var failures: [SchemaFailure] = []
    /// Failures not buffered because `failureCapacity` was reached.
    private(set) var droppedFailures = 0
    var frames: [Frame] = []
    /// The instance of each frame.
    var instances: [JSONValue] = []
    var unions: [UnionState] = []
    var path: [SchemaFailure.Segment] = []
    /// Members found by `properties` ops so far: how much of an instance a branch recognised.
    var evidence = 0
    /// Branches under evaluation whose failures may still be dropped.
    var speculative = 0
    /// Unions being collected after a check found them failing (see `maxPrecheckNesting`).
    var precheckNesting = 0
    /// Checks of unions before collecting them, that passed and that failed.
    var prechecksPassed = 0
    var prechecksFailed = 0
    private(set) var stopped = false

    init(collecting: Bool, maxFailures: Int = 1_000) {
        self.collecting = collecting
        self.maxFailures = max(1, maxFailures)
        self.failureCapacity = self.maxFailures * 4 + 256
    }

    /// Evaluates `document` against `node`; `true` when it conforms.
    mutating func run(_ document: JSONValue, node root: Int) -> Bool {
        if schema.isLocal[root] { return checkLocal(document, node: root, extra: nil) }
        frames.append(Frame(node: Int32(root), pathCount: 0))
        instances.append(document)
        var delivered: Bool?
        while let top = frames.indices.last {
            if let result = delivered {
                delivered = nil
                receive(result, top: top)
                continue
            }
            let node = Int(frames[top].node)
            let op = Int(schema.opStart[node] + frames[top].op)
            if op == Int(schema.opStart[node + 1]) || stopped || (!collecting && !frames[top].valid) {
                let finished = frames.removeLast()
                instances.removeLast()
                if finished.union >= 0 {
                    // Abandoned (the walk stopped): undo what the frame's union or subschema changed.
                    let abandoned = unions[Int(finished.union)...]
                    precheckNesting -= abandoned.filter(\.prechecked).count
                    if let first = abandoned.first, first.savedCollecting { collecting = true }
                    unions.removeSubrange(Int(finished.union)...)
                }
                guard let parent = frames.last else { return finished.valid }
                path.removeLast(path.count - Int(parent.pathCount))
                delivered = finished.valid
                continue
            }
            execute(schema.ops[op], top: top)
        }
        return false
    }

    /// Runs (or resumes) the current op of frame `top`: in place when it can; otherwise it pushes a frame
    /// and returns, and `receive` takes the result when that frame ends.
    private mutating func execute(_ op: CompiledSchema.Op, top: Int) {
        if op.inPlace {
            let node = Int(frames[top].node)
            if !checkInPlace(op, index: Int(frames[top].op), node: node, instances[top], extra: nil) {
                frames[top].valid = false
            }
            return advance(top)
        }
        switch op.kind {
        case .properties:
            guard case .object(let object) = instances[top] else { return advance(top) }
            while frames[top].step < op.b {
                let entry = Int(op.a + frames[top].step)
                frames[top].step += 1
                let name = schema.entryNames[entry]
                guard let value = Self.member(object, name) else { continue }
                evidence += 1
                if descend(into: value, node: Int(schema.entryNodes[entry]), segment: .key(name), parent: top) { return }
                if !collecting && !frames[top].valid { return }
            }
            advance(top)
        case .additionalProperties:
            guard case .object(var object) = instances[top] else { return advance(top) }
            if frames[top].step == 0 && object.hasDuplicateKeys {
                // Only the last of duplicate members counts, as everywhere else in this module.
                object = JSONObject(members: object.uniqueMembers)
                instances[top] = .object(object)
            }
            let declared = schema.names[Int(op.b)..<Int(op.b + op.c)]
            while frames[top].step < object.count {
                let member = object.members[Int(frames[top].step)]
                frames[top].step += 1
                if declared.contains(member.key) { continue }
                if descend(into: member.value, node: Int(op.a), segment: .key(member.key), parent: top) { return }
                if !collecting && !frames[top].valid { return }
            }
            advance(top)
        case .items:
            guard case .array(let elements) = instances[top] else { return advance(top) }
            while frames[top].step < elements.count {
                let position = Int(frames[top].step)
                frames[top].step += 1
                if descend(into: elements[position], node: Int(op.a), segment: .index(position), parent: top) { return }
                if !collecting && !frames[top].valid { return }
            }
            advance(top)
        case .ref:
            frames[top].step = 1
            push(instances[top], node: Int(op.a), descending: nil)
        case .oneOf, .anyOf:
            runUnion(op, top: top)
        case .not:
            beginSubschema(top: top)
            frames[top].step = 1
            push(instances[top], node: Int(op.a), descending: nil)
        case .conditional:
            runConditional(op, top: top)
        case .type, .constant, .enumeration, .minimum, .maximum, .exclusiveMinimum, .exclusiveMaximum,
             .minItems, .maxItems, .pattern, .required:
            advance(top)  // always in place (above)
        }
    }

    /// Checks `value` against `node`: in place when the node is local (returns `false`), else pushes a
    /// frame for it (returns `true`: the caller returns and waits for `receive`).
    private mutating func descend(into value: JSONValue, node: Int, segment: SchemaFailure.Segment, parent: Int) -> Bool {
        if schema.isLocal[node] {
            if !checkLocal(value, node: node, extra: segment) { frames[parent].valid = false }
            return false
        }
        push(value, node: node, descending: segment)
        return true
    }

    mutating func push(_ value: JSONValue, node: Int, descending segment: SchemaFailure.Segment?) {
        if let segment { path.append(segment) }
        frames.append(Frame(node: Int32(node), pathCount: Int32(path.count)))
        instances.append(value)
    }

    mutating func advance(_ top: Int) {
        frames[top].op += 1
        frames[top].step = 0
    }

    /// Takes the result of the frame that just ended, for the op of frame `top` that pushed it.
    private mutating func receive(_ result: Bool, top: Int) {
        let op = schema.ops[Int(schema.opStart[Int(frames[top].node)] + frames[top].op)]
        switch op.kind {
        case .properties, .additionalProperties, .items:
            if !result { frames[top].valid = false }
        case .oneOf, .anyOf:
            endBranch(Int(frames[top].union), admitted: result, depth: Int(frames[top].pathCount),
                      index: Int(frames[top].step) - 1)
        case .not:
            let negated = endSubschema(top: top)
            if result {
                frames[top].valid = false
                record(.negated, node: Int(frames[top].node), op: Int(frames[top].op), value: negated)
            }
            advance(top)
        case .conditional:
            conditionalReceived(result, top: top)
        default:
            if !result { frames[top].valid = false }
            advance(top)
        }
    }

    /// Runs `body` with collecting switched off: for a subschema whose failures never count.
    mutating func checking<Result>(_ body: (inout SchemaEvaluator) -> Result) -> Result {
        let saved = collecting
        collecting = false
        defer { collecting = saved }
        return body(&self)
    }

    /// Records a failure (when collecting), at the current path plus `extra`.
    mutating func record(_ kind: SchemaFailure.Kind, node: Int, op: Int, value: JSONValue,
                         extra: SchemaFailure.Segment? = nil) {
        guard collecting else { return }
        guard failures.count < failureCapacity else {
            droppedFailures += 1
            return
        }
        var failurePath = path
        if let extra { failurePath.append(extra) }
        failures.append(SchemaFailure(path: failurePath, node: node, op: op, kind: kind, value: value))
        checkBudget()
    }

    /// Stops collecting once `maxFailures` failures are certain (no branch left that could drop them).
    mutating func checkBudget() {
        if collecting && speculative == 0 && failures.count >= maxFailures { stopped = true }
    }

    /// The value of the last member named `name` (as `JSONObject`'s subscript), comparing lengths before
    /// contents: most members a schema asks for are absent, and most keys differ in length.
    @inline(__always)
    static func member(_ object: JSONObject, _ name: String) -> JSONValue? {
        let length = name.utf8.count
        var index = object.members.count
        while index > 0 {
            index -= 1
            let key = object.members[index].key
            if key.utf8.count == length && key == name { return object.members[index].value }
        }
        return nil
    }

    /// Drops the failures from `start` on.
    mutating func dropFailures(from start: Int) {
        if failures.count > start { failures.removeSubrange(start...) }
    }

    /// Drops the failures in `range`, moving the later ones down.
    mutating func dropFailures(_ range: Range<Int>) {
        failures.removeSubrange(range)
    }
}
