/// Checks that keyframe times (`t`) never go back, in every animated property of a layer: its
/// transform, time remap, masks, effects, shapes and text document, walked iteratively.
enum KeyframeOrder {
    /// One step of the walk: a member or element of the step `parent`, or (`parent < 0`) the root
    /// `-parent - 1`. Paths are only written out for the problems found.
    private struct Step {
        var parent: Int
        var segment: SchemaFailure.Segment
    }

    static func check(layer: LottieLayer, path: String, into problems: inout ProblemList) {
        var roots: [String] = []
        var steps: [Step] = []
        var pending: [(JSONValue, Int)] = []
        func root(_ value: JSONValue, _ suffix: String) {
            roots.append(path + suffix)
            steps.append(Step(parent: -roots.count, segment: .index(0)))
            pending.append((value, steps.count - 1))
        }
        if let transform = layer.transform { root(transform.json, ".ks") }
        if let masks = layer.masks { root(.array(masks), ".masksProperties") }
        if let effects = layer.effects { root(.array(effects), ".ef") }
        switch layer.content {
        case .precomposition(_, _, let timeRemap?): root(timeRemap.json, ".tm")
        case .shape(let shapes?): root(shapes, ".shapes")
        case .text(let document?): root(document, ".t")
        default: break
        }
        func text(_ step: Int) -> String {
            var segments: [SchemaFailure.Segment] = []
            var current = step
            while steps[current].parent >= 0 {
                segments.append(steps[current].segment)
                current = steps[current].parent
            }
            var text = roots[-steps[current].parent - 1]
            for segment in segments.reversed() {
                switch segment {
                case .key(let key): text += JSONPath.member(key)
                case .index(let index): text += "[\(index)]"
                }
            }
            return text
        }
        while problems.hasRoom, let (value, step) = pending.popLast() {
            switch value {
            case .array(let elements):
                for (position, element) in elements.enumerated() where element.isContainer {
                    steps.append(Step(parent: step, segment: .index(position)))
                    pending.append((element, steps.count - 1))
                }
            case .object(let object):
                for member in object.uniqueMembers where member.value.isContainer {
                    steps.append(Step(parent: step, segment: .key(member.key)))
                    pending.append((member.value, steps.count - 1))
                }
                guard case .array(let keyframes)? = object["k"], JSONValue.allKeyframesTimed(keyframes) else { continue }
                var previous = -Double.infinity
                for (position, keyframe) in keyframes.enumerated() {
                    guard let time = keyframe.objectValue?["t"]?.doubleValue else { continue }
                    if time < previous {
                        problems.append(LottieProblem(
                            path: "\(text(step)).k[\(position)].t",
                            message: "keyframe time \(time) comes before the previous one (\(previous))"))
                    }
                    previous = time
                }
            default:
                continue
            }
        }
    }
}

extension JSONValue {
    /// `true` for a non-empty array of objects that all carry a numeric `t` (what `keyframeTimes` reads).
    static func allKeyframesTimed(_ elements: [JSONValue]) -> Bool {
        !elements.isEmpty && elements.allSatisfy { $0.objectValue?["t"]?.doubleValue != nil }
    }

    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
