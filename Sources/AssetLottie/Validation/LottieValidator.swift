/// Strict validation: every problem of an animation, each with its JSON path.
///
/// Checks: required `fr`, `ip`, `op`, `w`, `h`, `layers`; `fr > 0`; `op > ip`; integer, non-negative
/// sizes; layer types; parents that exist in the same composition; no cycles in parent chains;
/// precomposition and image references that resolve; no cycles among precompositions; embedded
/// images that are `data:` URLs; keyframe times that never go back. Every walk is iterative.
public struct LottieValidator: Sendable {
    public init() {}

    /// All problems found; empty when the animation is valid.
    public func validate(_ animation: LottieAnimation) -> [LottieProblem] {
        var problems: [LottieProblem] = []
        validateTopLevel(animation, into: &problems)
        var precompositionIDs = Set<String>()
        var imageIDs = Set<String>()
        for (position, asset) in (animation.assets ?? []).enumerated() {
            let path = "$.assets[\(position)]"
            switch asset {
            case .precomposition(let precomposition):
                if let id = precomposition.id { precompositionIDs.insert(id) } else {
                    problems.append(LottieProblem(path: path + ".id", message: "a precomposition needs a string id"))
                }
            case .image(let image):
                if let id = image.id { imageIDs.insert(id) }
                validateImage(image, path: path, into: &problems)
            case .other:
                break
            }
        }
        let references = References(precompositions: precompositionIDs, images: imageIDs)
        if let layers = animation.layers {
            validateLayers(layers, path: "$.layers", references: references, into: &problems)
        }
        for (position, asset) in (animation.assets ?? []).enumerated() {
            if case .precomposition(let precomposition) = asset {
                validateLayers(precomposition.layers, path: "$.assets[\(position)].layers",
                               references: references, into: &problems)
            }
        }
        problems += PrecompositionCycles.find(in: animation)
        return problems
    }

    struct References {
        var precompositions: Set<String>
        var images: Set<String>
    }

    private func validateTopLevel(_ animation: LottieAnimation, into problems: inout [LottieProblem]) {
        func required(_ key: String, _ value: Double?) {
            if value == nil { problems.append(LottieProblem(path: "$.\(key)", message: "required number is missing or not a number")) }
        }
        required("fr", animation.frameRate)
        required("ip", animation.inPoint)
        required("op", animation.outPoint)
        required("w", animation.width)
        required("h", animation.height)
        if let frameRate = animation.frameRate, !(frameRate > 0) {
            problems.append(LottieProblem(path: "$.fr", message: "frame rate must be > 0 (is \(frameRate))"))
        }
        if let inPoint = animation.inPoint, let outPoint = animation.outPoint, !(outPoint > inPoint) {
            problems.append(LottieProblem(path: "$.op", message: "op (\(outPoint)) must be > ip (\(inPoint))"))
        }
        for (key, size) in [("w", animation.width), ("h", animation.height)] {
            guard let size else { continue }
            if size.rounded() != size || size < 0 {
                problems.append(LottieProblem(path: "$.\(key)", message: "size must be a non-negative integer (is \(size))"))
            }
        }
        if animation.layers == nil {
            problems.append(LottieProblem(path: "$.layers", message: "required list of layer objects is missing or malformed"))
        }
    }

    private func validateImage(_ image: LottieImageAsset, path: String, into problems: inout [LottieProblem]) {
        if image.isDataURL {
            if image.source == .malformed {
                problems.append(LottieProblem(path: path + ".p", message: "data: URL cannot be decoded"))
            }
        } else if image.embedded == 1 {
            problems.append(LottieProblem(path: path + ".p", message: "embedded image (e: 1) must be a data: URL"))
        }
    }

    private func validateLayers(_ layers: [LottieLayer], path: String, references: References,
                                into problems: inout [LottieProblem]) {
        var positionByIndex: [Int: Int] = [:]
        for (position, layer) in layers.enumerated() {
            guard let index = layer.index else { continue }
            if positionByIndex[index] != nil {
                problems.append(LottieProblem(path: "\(path)[\(position)].ind", message: "duplicate layer index \(index)"))
            } else {
                positionByIndex[index] = position
            }
        }
        for (position, layer) in layers.enumerated() {
            let layerPath = "\(path)[\(position)]"
            if layer.typeCode == nil {
                problems.append(LottieProblem(path: layerPath + ".ty", message: "layer type is missing or not an integer"))
            }
            if let parent = layer.parent, positionByIndex[parent] == nil {
                problems.append(LottieProblem(path: layerPath + ".parent", message: "no layer has ind \(parent)"))
            }
            switch layer.content {
            case .precomposition:
                if let id = layer.referenceID {
                    if !references.precompositions.contains(id) {
                        problems.append(LottieProblem(path: layerPath + ".refId", message: "no precomposition asset has id \"\(id)\""))
                    }
                } else {
                    problems.append(LottieProblem(path: layerPath + ".refId", message: "a precomposition layer needs refId"))
                }
            case .image:
                if let id = layer.referenceID {
                    if !references.images.contains(id) {
                        problems.append(LottieProblem(path: layerPath + ".refId", message: "no image asset has id \"\(id)\""))
                    }
                } else {
                    problems.append(LottieProblem(path: layerPath + ".refId", message: "an image layer needs refId"))
                }
            default:
                break
            }
            KeyframeOrder.check(layer: layer, path: layerPath, into: &problems)
        }
        problems += ParentCycles.find(in: layers, positionByIndex: positionByIndex, path: path)
    }
}
