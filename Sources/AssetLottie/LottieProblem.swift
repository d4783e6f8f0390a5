/// One problem found by strict validation, at a JSON path such as `$.layers[3].parent`.
public struct LottieProblem: Sendable, Equatable, CustomStringConvertible {
    /// Where, as a JSON path from the animation's root (`$`).
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates a problem at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, as `$.layers[3].parent: no layer has ind 7`.
    public var description: String { "\(path): \(message)" }
}
