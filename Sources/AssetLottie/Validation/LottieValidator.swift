/// Strict validation: every problem of an animation, each with its JSON path.
///
/// - **The Lottie 1.0 schema**: every constraint of the lottie-spec JSON Schema (types, enums, ranges,
///   required members, the `oneOf`/`allOf`/`if` structure of layers, shapes, assets and animated
///   properties), compiled from the schema by `scripts/gen-lottie-schema` (see `LottieSchema`).
/// - **On top of the schema**: required `fr`, `ip`, `op`, `w`, `h`, `layers`; `fr > 0`; `op > ip`;
///   integer, non-negative sizes; integer layer types; parents that exist in the same composition; no
///   cycles in parent chains; precomposition and image references that resolve; no cycles among
///   precompositions; embedded images (`e: 1`) that are `data:` URLs; keyframe times that never go back.
/// - **Bounded**: every walk is iterative; at most `maxProblems` problems are reported (then one at `$`
///   that says more were left out), one per path where the schema and the checks above agree.
///
/// ```swift
/// let problems = LottieValidator().validate(animation)
/// for problem in problems { print(problem) }   // $.layers[0].ks.a.a: must be one of 0, 1 (found 2)
/// ```
public struct LottieValidator: Sendable {
    /// Most problems reported. Default 1,000.
    public var maxProblems: Int = 1_000

    /// Creates a validator with the default ``maxProblems`` (1,000).
    public init() {}

    /// All problems found; empty when the animation is valid.
    public func validate(_ animation: LottieAnimation) -> [LottieProblem] {
        validate(animation, document: animation.json)
    }

    /// All problems of `animation`, parsed from `document` (the schema is checked on the document, so
    /// that nothing is rebuilt).
    func validate(_ animation: LottieAnimation, document: JSONValue) -> [LottieProblem] {
        var problems = ProblemList(limit: maxProblems)
        validateTopLevel(animation, into: &problems)
        var precompositionIDs = Set<String>()
        var imageIDs = Set<String>()
        for (position, asset) in (animation.assets ?? []).enumerated() {
            let path = "$.assets[\(position)]"
            switch asset {
            case .precomposition(let precomposition):
                if let id = precomposition.id { precompositionIDs.insert(id) } else {
                    problems.append(path: path + ".id", message: "a precomposition needs a string id")
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
        problems.append(contentsOf: PrecompositionCycles.find(in: animation))
        // The schema's problems, where the checks above have not already named the path.
        for problem in LottieSchema.problems(in: document, limit: maxProblems + 1)
        where !problems.paths.contains(problem.path) {
            problems.append(problem)
        }
        return problems.result
    }

    struct References {
        var precompositions: Set<String>
        var images: Set<String>
    }

    private func validateTopLevel(_ animation: LottieAnimation, into problems: inout ProblemList) {
        func required(_ key: String, _ value: Double?) {
            if value == nil { problems.append(path: "$.\(key)", message: "required number is missing or not a number") }
        }
        required("fr", animation.frameRate)
        required("ip", animation.inPoint)
        required("op", animation.outPoint)
        required("w", animation.width)
        required("h", animation.height)
        if let frameRate = animation.frameRate, !(frameRate > 0) {
            problems.append(path: "$.fr", message: "frame rate must be > 0 (is \(frameRate))")
        }
        if let inPoint = animation.inPoint, let outPoint = animation.outPoint, !(outPoint > inPoint) {
            problems.append(path: "$.op", message: "op (\(outPoint)) must be > ip (\(inPoint))")
        }
        for (key, size) in [("w", animation.width), ("h", animation.height)] {
            guard let size else { continue }
            if size.rounded() != size || size < 0 {
                problems.append(path: "$.\(key)", message: "size must be a non-negative integer (is \(size))")
            }
        }
        if animation.layers == nil {
            problems.append(path: "$.layers", message: "required list of layer objects is missing or malformed")
        }
    }

    /// The payload of a `data:` URL is not checked: the format says nothing of image bits (the spec's own
    /// valid/embedded-image.json carries `/InvalidImageBits`); the schema checks the URL's shape.
    private func validateImage(_ image: LottieImageAsset, path: String, into problems: inout ProblemList) {
        if !image.isDataURL && image.embedded == 1 {
            problems.append(path: path + ".p", message: "embedded image (e: 1) must be a data: URL")
        }
    }

    private func validateLayers(_ layers: [LottieLayer], path: String, references: References,
                                into problems: inout ProblemList) {
        var positionByIndex: [Int: Int] = [:]
        for (position, layer) in layers.enumerated() {
            guard let index = layer.index else { continue }
            if positionByIndex[index] != nil {
                problems.append(path: "\(path)[\(position)].ind", message: "duplicate layer index \(index)")
            } else {
                positionByIndex[index] = position
            }
        }
        for (position, layer) in layers.enumerated() {
            let layerPath = "\(path)[\(position)]"
            if layer.typeCode == nil {
                problems.append(path: layerPath + ".ty", message: "layer type is missing or not an integer")
            }
            if let parent = layer.parent, positionByIndex[parent] == nil {
                problems.append(path: layerPath + ".parent", message: "no layer has ind \(parent)")
            }
            switch layer.content {
            case .precomposition:
                if let id = layer.referenceID {
                    if !references.precompositions.contains(id) {
                        problems.append(path: layerPath + ".refId", message: "no precomposition asset has id \"\(id)\"")
                    }
                } else {
                    problems.append(path: layerPath + ".refId", message: "a precomposition layer needs refId")
                }
            case .image:
                if let id = layer.referenceID {
                    if !references.images.contains(id) {
                        problems.append(path: layerPath + ".refId", message: "no image asset has id \"\(id)\"")
                    }
                } else {
                    problems.append(path: layerPath + ".refId", message: "an image layer needs refId")
                }
            default:
                break
            }
            KeyframeOrder.check(layer: layer, path: layerPath, into: &problems)
        }
        problems.append(contentsOf: ParentCycles.find(in: layers, positionByIndex: positionByIndex, path: path))
    }
}
