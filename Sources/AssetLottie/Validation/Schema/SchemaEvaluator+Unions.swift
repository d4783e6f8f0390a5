extension SchemaEvaluator {
    /// Runs (or resumes) the branches of a `oneOf` (exactly one must admit the instance) or `anyOf` (at
    /// least one), then concludes. See `BranchRank` for which failed branch's failures are kept.
    mutating func runUnion(_ branches: [Int], isOneOf: Bool, top: Int) {
        if frames[top].step == 0 { frames[top].union = UnionState(failureStart: failures.count) }
        while frames[top].step < branches.count {
            let matches = frames[top].union.matches
            if isOneOf ? matches > 1 : matches > 0 { break }
            let branch = branches[frames[top].step]
            frames[top].step += 1
            frames[top].union.branchStart = failures.count
            frames[top].union.evidenceStart = evidence
            frames[top].union.droppedStart = droppedFailures
            speculative += 1
            if LottieSchema.nodes[branch].isLocal {
                let admitted = checkLocal(frames[top].instance, node: branch, extra: nil)
                speculative -= 1
                branchEnded(admitted: admitted, top: top)
                continue
            }
            push(frames[top].instance, node: branch, descending: nil, parent: top)
            return
        }
        concludeUnion(isOneOf: isOneOf, top: top)
    }

    /// Notes the outcome of the branch that just ran (`step - 1`); when collecting, keeps its failures
    /// only if it is the closest miss so far.
    mutating func branchEnded(admitted: Bool, top: Int) {
        let state = frames[top].union
        if admitted {
            frames[top].union.matches += 1
            dropFailures(from: state.branchStart)
            return
        }
        guard collecting else { return }
        let rank = BranchRank(failures: failures[state.branchStart...], dropped: droppedFailures - state.droppedStart,
                              depth: frames[top].pathCount,
                              evidence: evidence - state.evidenceStart, index: frames[top].step - 1)
        if let best = state.best, !(rank < best) {
            dropFailures(from: state.branchStart)
        } else {
            dropFailures(state.failureStart..<state.branchStart)
            frames[top].union.best = rank
        }
    }

    private mutating func concludeUnion(isOneOf: Bool, top: Int) {
        let state = frames[top].union
        let admitted = isOneOf ? state.matches == 1 : state.matches >= 1
        if collecting && !admitted {
            let keepBest = state.matches == 0 && state.best?.shallow == false && failures.count > state.failureStart
            if !keepBest {
                dropFailures(from: state.failureStart)
                let kind: SchemaFailure.Kind = state.matches > 1 ? .manyMatched(state.matches) : .noneMatched
                record(kind, node: frames[top].node, op: frames[top].op, value: frames[top].instance)
            }
        } else {
            dropFailures(from: state.failureStart)
        }
        if !admitted { frames[top].valid = false }
        checkBudget()
        advance(top)
    }

    /// Ends a `not`: the failures of its subschema never count; the instance fails if it was admitted.
    mutating func finishNot(admitted: Bool, top: Int) {
        dropFailures(from: frames[top].union.failureStart)
        if admitted {
            frames[top].valid = false
            record(.negated, node: frames[top].node, op: frames[top].op, value: frames[top].instance)
        }
        checkBudget()
        advance(top)
    }

    /// Runs (or resumes) `if`/`then`/`else`: step 0 evaluates the condition (its failures never count),
    /// step 2 the chosen branch; steps 1 and 3 wait for a pushed frame.
    mutating func runConditional(condition: Int, then: Int?, otherwise: Int?, top: Int) {
        let instance = frames[top].instance
        if frames[top].step == 0 {
            frames[top].union.failureStart = failures.count
            speculative += 1
            if !LottieSchema.nodes[condition].isLocal {
                frames[top].step = 1
                push(instance, node: condition, descending: nil, parent: top)
                return
            }
            let held = checkLocal(instance, node: condition, extra: nil)
            speculative -= 1
            conditionEnded(held, top: top)
        }
        guard let target = frames[top].union.conditionHeld ? then : otherwise else { return advance(top) }
        if LottieSchema.nodes[target].isLocal {
            if !checkLocal(instance, node: target, extra: nil) { frames[top].valid = false }
            return advance(top)
        }
        frames[top].step = 3
        push(instance, node: target, descending: nil, parent: top)
    }

    /// Takes the result of a frame pushed by `runConditional`.
    mutating func conditionalReceived(_ result: Bool, top: Int) {
        if frames[top].step == 1 {
            speculative -= 1
            conditionEnded(result, top: top)
        } else {
            if !result { frames[top].valid = false }
            advance(top)
        }
    }

    private mutating func conditionEnded(_ held: Bool, top: Int) {
        dropFailures(from: frames[top].union.failureStart)
        frames[top].union.conditionHeld = held
        frames[top].step = 2
        checkBudget()
    }
}
