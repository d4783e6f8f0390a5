extension SchemaEvaluator {
    /// Runs (or resumes) the branches of a `oneOf` (exactly one must admit the instance) or `anyOf` (at
    /// least one) with a frame per branch, then concludes. See `BranchRank` for which failed branch's
    /// failures are kept.
    ///
    /// While collecting, a union is first run in the checking mode: most unions of a failing document
    /// admit their instance, and then nothing is collected for them; a failing one runs again,
    /// collecting. When most checks fail (a document wrong everywhere), unions are collected at once.
    mutating func runUnion(_ op: CompiledSchema.Op, top: Int) {
        let isOneOf = op.kind == .oneOf
        if frames[top].union < 0 {
            var state = UnionState(failureStart: failures.count)
            if collecting && precheckNesting < Self.maxPrecheckNesting && (prechecksFailed < 8 || prechecksPassed >= prechecksFailed) {
                state.checkingFirst = true
                state.savedCollecting = true
                collecting = false
            }
            unions.append(state)
            frames[top].union = Int32(unions.count - 1)
        }
        let union = Int(frames[top].union)
        while frames[top].step < op.b {
            if isDecided(union, isOneOf: isOneOf) { break }
            let branch = Int(schema.branches[Int(op.a + frames[top].step)])
            frames[top].step += 1
            beginBranch(union)
            if !collecting && schema.guardExcludes(branch, instances[top]) {
                endBranch(union, admitted: false, depth: Int(frames[top].pathCount), index: Int(frames[top].step) - 1)
                continue
            }
            if schema.isLocal[branch] {
                let admitted = checkLocal(instances[top], node: branch, extra: nil)
                endBranch(union, admitted: admitted, depth: Int(frames[top].pathCount), index: Int(frames[top].step) - 1)
                continue
            }
            push(instances[top], node: branch, descending: nil)
            return
        }
        if unions[union].checkingFirst {
            // The check is done: an admitted union needs nothing collected; a failing one runs again.
            collecting = true
            let matches = unions[union].matches
            if isOneOf ? matches == 1 : matches >= 1 {
                prechecksPassed += 1
                unions.removeLast()
                frames[top].union = -1
                return advance(top)
            }
            prechecksFailed += 1
            precheckNesting += 1
            unions[union] = UnionState(failureStart: failures.count, prechecked: true)
            frames[top].step = 0
            return
        }
        let admitted = concludeUnion(union, isOneOf: isOneOf, node: Int(frames[top].node), op: Int(frames[top].op),
                                     value: instances[top], extra: nil)
        frames[top].union = -1
        if !admitted { frames[top].valid = false }
        advance(top)
    }

    /// The same, in place, for branches that are all local; `extra` is the path step to `value`. While
    /// collecting, checked first in the checking mode too (the recursion is bounded by the schema).
    mutating func checkUnionInPlace(_ op: CompiledSchema.Op, node: Int, index: Int, _ value: JSONValue,
                                    extra: SchemaFailure.Segment?) -> Bool {
        if collecting && (prechecksFailed < 8 || prechecksPassed >= prechecksFailed) {
            if checking({ $0.checkUnionInPlace(op, node: node, index: index, value, extra: extra) }) {
                prechecksPassed += 1
                return true
            }
            prechecksFailed += 1
        }
        unions.append(UnionState(failureStart: failures.count))
        let union = unions.count - 1
        let depth = path.count + (extra == nil ? 0 : 1)
        let isOneOf = op.kind == .oneOf
        for position in 0..<Int(op.b) {
            if isDecided(union, isOneOf: isOneOf) { break }
            let branch = Int(schema.branches[Int(op.a) + position])
            beginBranch(union)
            let admitted = !(!collecting && schema.guardExcludes(branch, value))
                && checkLocal(value, node: branch, extra: extra)
            endBranch(union, admitted: admitted, depth: depth, index: position)
        }
        return concludeUnion(union, isOneOf: isOneOf, node: node, op: index, value: value, extra: extra)
    }

    /// A `oneOf` with two matches has failed and an `anyOf` with one has passed, whatever comes next.
    private func isDecided(_ union: Int, isOneOf: Bool) -> Bool {
        isOneOf ? unions[union].matches > 1 : unions[union].matches > 0
    }

    private mutating func beginBranch(_ union: Int) {
        unions[union].branchStart = failures.count
        unions[union].evidenceStart = evidence
        unions[union].droppedStart = droppedFailures
        speculative += 1
    }

    /// Notes the outcome of branch `index`; when collecting, keeps its failures only if it is the
    /// closest miss so far. `depth` is the path length of the union's instance.
    mutating func endBranch(_ union: Int, admitted: Bool, depth: Int, index: Int) {
        speculative -= 1
        let state = unions[union]
        if admitted {
            unions[union].matches += 1
            dropFailures(from: state.branchStart)
            return
        }
        guard collecting else { return }
        let rank = BranchRank(failures: failures[state.branchStart...], dropped: droppedFailures - state.droppedStart,
                              depth: depth, evidence: evidence - state.evidenceStart, index: index)
        if let best = state.best, !(rank < best) {
            dropFailures(from: state.branchStart)
        } else {
            dropFailures(state.failureStart..<state.branchStart)
            unions[union].best = rank
        }
    }

    /// Whether the union admits the value; when collecting and it does not, leaves the closest branch's
    /// failures, or one failure for the union itself when no branch came close or several matched.
    /// Removes the union's state (the last one).
    private mutating func concludeUnion(_ union: Int, isOneOf: Bool, node: Int, op: Int, value: JSONValue,
                                        extra: SchemaFailure.Segment?) -> Bool {
        let state = unions.removeLast()
        if state.prechecked { precheckNesting -= 1 }
        let admitted = isOneOf ? state.matches == 1 : state.matches >= 1
        if collecting && !admitted {
            let keepBest = state.matches == 0 && state.best?.shallow == false && failures.count > state.failureStart
            if !keepBest {
                dropFailures(from: state.failureStart)
                let kind: SchemaFailure.Kind = state.matches > 1 ? .manyMatched(state.matches) : .noneMatched
                record(kind, node: node, op: op, value: value, extra: extra)
            }
        } else {
            dropFailures(from: state.failureStart)
        }
        checkBudget()
        return admitted
    }

    /// Starts evaluating a subschema whose failures never count (`not`, `if`) for frame `top`, in the
    /// checking mode (restored by `endSubschema`).
    mutating func beginSubschema(top: Int) {
        unions.append(UnionState(failureStart: failures.count, savedCollecting: collecting))
        frames[top].union = Int32(unions.count - 1)
        collecting = false
    }

    /// Ends it; returns the frame's instance.
    mutating func endSubschema(top: Int) -> JSONValue {
        collecting = unions.removeLast().savedCollecting
        frames[top].union = -1
        return instances[top]
    }

    /// Runs (or resumes) `if`/`then`/`else` with frames: step 0 evaluates the condition (step 1 waits for
    /// its frame); steps 2 (it held) and 4 (it did not) pick the branch; step 3 waits for its frame.
    mutating func runConditional(_ op: CompiledSchema.Op, top: Int) {
        if frames[top].step == 0 {
            beginSubschema(top: top)
            if !schema.isLocal[Int(op.a)] {
                frames[top].step = 1
                return push(instances[top], node: Int(op.a), descending: nil)
            }
            let held = checkLocal(instances[top], node: Int(op.a), extra: nil)
            _ = endSubschema(top: top)
            frames[top].step = held ? 2 : 4
        }
        let target = Int(frames[top].step == 2 ? op.b : op.c)
        guard target >= 0 else { return advance(top) }
        if schema.isLocal[target] {
            if !checkLocal(instances[top], node: target, extra: nil) { frames[top].valid = false }
            return advance(top)
        }
        frames[top].step = 3
        push(instances[top], node: target, descending: nil)
    }

    /// Takes the result of a frame pushed by `runConditional`.
    mutating func conditionalReceived(_ result: Bool, top: Int) {
        if frames[top].step == 1 {
            _ = endSubschema(top: top)
            frames[top].step = result ? 2 : 4
        } else {
            if !result { frames[top].valid = false }
            advance(top)
        }
    }
}
