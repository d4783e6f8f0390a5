/// Checks that keyframe times (`t`) never go back, in every animated property of a layer: its
/// transform, time remap, masks, effects, shapes and text document, walked iteratively.
enum KeyframeOrder {
    static func check(layer: LottieLayer, path: String, into problems: inout ProblemList) {
        var pending: [(JSONValue, String)] = []
        if let transform = layer.transform { pending.append((transform.json, path + ".ks")) }
        if let masks = layer.masks { pending.append((.array(masks), path + ".masksProperties")) }
        if let effects = layer.effects { pending.append((.array(effects), path + ".ef")) }
        switch layer.content {
        case .precomposition(_, _, let timeRemap?): pending.append((timeRemap.json, path + ".tm"))
        case .shape(let shapes?): pending.append((shapes, path + ".shapes"))
        case .text(let document?): pending.append((document, path + ".t"))
        default: break
        }
        while problems.hasRoom, let (value, valuePath) = pending.popLast() {
            switch value {
            case .array(let elements):
                for (position, element) in elements.enumerated() where element.isContainer {
                    pending.append((element, "\(valuePath)[\(position)]"))
                }
            case .object(let object):
                for member in object.uniqueMembers where member.value.isContainer {
                    pending.append((member.value, valuePath + JSONPath.member(member.key)))
                }
                guard let times = JSONValue.keyframeTimes(of: object["k"]) else { continue }
                for position in times.indices.dropFirst() where times[position] < times[position - 1] {
                    problems.append(LottieProblem(
                        path: "\(valuePath).k[\(position)].t",
                        message: "keyframe time \(times[position]) comes before the previous one (\(times[position - 1]))"))
                }
            default:
                continue
            }
        }
    }
}

extension JSONValue {
    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
