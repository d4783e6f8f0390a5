/// One problem found by strict validation, at a JSON path such as `$.layers[3].parent`.
public struct LottieProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where, as a JSON path from the animation's root (`$`).
    public var path: String
    /// What is wrong.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
