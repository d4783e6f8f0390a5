/// Runs the compiled schema (`LottieSchema.nodes`) over a JSON value.
///
/// - **Iterative**: every (instance, node) pair that needs other nodes gets a frame on an explicit stack;
///   nodes of local ops only are checked in place. Nothing recurses, whatever the nesting.
/// - **Two modes**: checking (`collecting == false`) stops a frame at its first failure and records
///   nothing; collecting records every failure with its path. A `oneOf`/`anyOf` then evaluates every
///   branch, keeps the failures of the branch that was most likely meant (see `BranchRank`) and drops the
///   others, so that a problem is reported where it is (`$.layers[0].ks.a.a`), not where a union begins.
/// - **Bounded**: collecting stops once `maxFailures` failures are certain, and never buffers more than
///   `failureCapacity` (failures of branches still being compared included).
struct SchemaEvaluator {
    struct Frame {
        var instance: JSONValue
        var node: Int
        var pathCount: Int
        var op = 0
        /// Progress inside the op: the next member, element or branch, or the phase of a conditional.
        var step = 0
        var valid = true
        var union = UnionState()
    }

    /// Book-keeping of a `oneOf`/`anyOf` (and the condition of an `if`) while its branches run.
    struct UnionState {
        var failureStart = 0
        var branchStart = 0
        var evidenceStart = 0
        var droppedStart = 0
        var matches = 0
        var best: BranchRank?
        var conditionHeld = false
    }

    let collecting: Bool
    let maxFailures: Int
    let failureCapacity: Int
    private(set) var failures: [SchemaFailure] = []
    var frames: [Frame] = []
    var path: [SchemaFailure.Segment] = []
    /// Failures not buffered because `failureCapacity` was reached.
    private(set) var droppedFailures = 0
    /// Members found by `properties` ops so far: how much of an instance a branch recognised.
    var evidence = 0
    /// Branches under evaluation whose failures may still be dropped.
    var speculative = 0
    private(set) var stopped = false

    init(collecting: Bool, maxFailures: Int = 1_000) {
        self.collecting = collecting
        self.maxFailures = max(1, maxFailures)
        self.failureCapacity = self.maxFailures * 4 + 256
    }

    /// Evaluates `document` against `node`; `true` when it conforms.
    mutating func run(_ document: JSONValue, node root: Int) -> Bool {
        if LottieSchema.nodes[root].isLocal { return checkLocal(document, node: root, extra: nil) }
        frames.append(Frame(instance: document, node: root, pathCount: 0))
        var delivered: Bool?
        while let top = frames.indices.last {
            if let result = delivered {
                delivered = nil
                receive(result, top: top)
                continue
            }
            let node = LottieSchema.nodes[frames[top].node]
            if frames[top].op == node.ops.count || stopped || (!collecting && !frames[top].valid) {
                let finished = frames.removeLast()
                guard let parent = frames.last else { return finished.valid }
                path.removeLast(path.count - parent.pathCount)
                delivered = finished.valid
                continue
            }
            execute(node.ops[frames[top].op], top: top)
        }
        return false
    }

    /// Runs (or resumes) the current op of frame `top`: local checks in place; ops that need another node
    /// push a frame and return, and `receive` takes the result when that frame ends.
    private mutating func execute(_ op: SchemaOp, top: Int) {
        let instance = frames[top].instance
        switch op {
        case .ref(let target):
            if LottieSchema.nodes[target].isLocal {
                if !checkLocal(instance, node: target, extra: nil) { frames[top].valid = false }
                advance(top)
            } else {
                frames[top].step = 1
                push(instance, node: target, descending: nil, parent: top)
            }
        case .properties(let properties):
            guard case .object(let object) = instance else { return advance(top) }
            while frames[top].step < properties.count {
                let property = properties[frames[top].step]
                frames[top].step += 1
                guard let value = object[property.name] else { continue }
                evidence += 1
                if descend(into: value, node: property.node, segment: .key(property.name), parent: top) { return }
                if !collecting && !frames[top].valid { return }
            }
            advance(top)
        case .additionalProperties(let target, let declared):
            guard case .object(var object) = instance else { return advance(top) }
            if frames[top].step == 0 && object.hasDuplicateKeys {
                // Only the last of duplicate members counts, as everywhere else in this module.
                object = JSONObject(members: object.uniqueMembers)
                frames[top].instance = .object(object)
            }
            while frames[top].step < object.count {
                let member = object.members[frames[top].step]
                frames[top].step += 1
                if declared.contains(member.key) { continue }
                if descend(into: member.value, node: target, segment: .key(member.key), parent: top) { return }
                if !collecting && !frames[top].valid { return }
            }
            advance(top)
        case .items(let target):
            guard case .array(let elements) = instance else { return advance(top) }
            if LottieSchema.nodes[target].isLocal {
                // The bulk of a Lottie file: arrays of numbers. Checked in one loop, no frames.
                while frames[top].step < elements.count {
                    let position = frames[top].step
                    frames[top].step += 1
                    if !checkLocal(elements[position], node: target, extra: .index(position)) {
                        frames[top].valid = false
                        if !collecting { return }
                    }
                }
                return advance(top)
            }
            if frames[top].step < elements.count {
                let position = frames[top].step
                frames[top].step += 1
                path.append(.index(position))
                frames.append(Frame(instance: elements[position], node: target, pathCount: path.count))
                return
            }
            advance(top)
        case .oneOf(let branches):
            runUnion(branches, isOneOf: true, top: top)
        case .anyOf(let branches):
            runUnion(branches, isOneOf: false, top: top)
        case .not(let target):
            frames[top].union.failureStart = failures.count
            if LottieSchema.nodes[target].isLocal {
                speculative += 1
                let admitted = checkLocal(instance, node: target, extra: nil)
                speculative -= 1
                finishNot(admitted: admitted, top: top)
            } else {
                speculative += 1
                frames[top].step = 1
                push(instance, node: target, descending: nil, parent: top)
            }
        case .conditional(let condition, let then, let otherwise):
            runConditional(condition: condition, then: then, otherwise: otherwise, top: top)
        default:
            if !checkLocalOp(op, index: frames[top].op, node: frames[top].node, instance, extra: nil) {
                frames[top].valid = false
            }
            advance(top)
        }
    }

    /// Checks `value` against `node`: in place when the node is local (returns `false`), else pushes a
    /// frame for it (returns `true`: the caller returns and waits for `receive`).
    private mutating func descend(into value: JSONValue, node: Int, segment: SchemaFailure.Segment, parent: Int) -> Bool {
        if LottieSchema.nodes[node].isLocal {
            if !checkLocal(value, node: node, extra: segment) { frames[parent].valid = false }
            return false
        }
        push(value, node: node, descending: segment, parent: parent)
        return true
    }

    mutating func push(_ value: JSONValue, node: Int, descending segment: SchemaFailure.Segment?, parent: Int) {
        if let segment { path.append(segment) }
        frames.append(Frame(instance: value, node: node, pathCount: path.count))
    }

    mutating func advance(_ top: Int) {
        frames[top].op += 1
        frames[top].step = 0
    }

    /// Takes the result of the frame that just ended, for the op of frame `top` that pushed it.
    private mutating func receive(_ result: Bool, top: Int) {
        switch LottieSchema.nodes[frames[top].node].ops[frames[top].op] {
        case .ref:
            if !result { frames[top].valid = false }
            advance(top)
        case .properties, .additionalProperties, .items:
            if !result { frames[top].valid = false }
        case .oneOf, .anyOf:
            speculative -= 1
            branchEnded(admitted: result, top: top)
        case .not:
            speculative -= 1
            finishNot(admitted: result, top: top)
        case .conditional:
            conditionalReceived(result, top: top)
        default:
            advance(top)
        }
    }

    /// Checks `value` against a node of local ops only. `extra` is the path step from the current frame's
    /// instance to `value`, when they differ.
    mutating func checkLocal(_ value: JSONValue, node: Int, extra: SchemaFailure.Segment?) -> Bool {
        var valid = true
        for (index, op) in LottieSchema.nodes[node].ops.enumerated()
        where !checkLocalOp(op, index: index, node: node, value, extra: extra) {
            valid = false
            if !collecting { return false }
        }
        return valid
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

    /// Drops the failures from `start` on.
    mutating func dropFailures(from start: Int) {
        if failures.count > start { failures.removeSubrange(start...) }
    }

    /// Drops the failures in `range`, moving the later ones down.
    mutating func dropFailures(_ range: Range<Int>) {
        failures.removeSubrange(range)
    }
}
