/// One subschema of the compiled Lottie schema: its ops, in the order they run, and a label.
struct SchemaNode: Sendable {
    /// How messages name this node: its `$defs` path (`layers/shape-layer`), else its title, else a
    /// short description of what it admits.
    let label: String
    let ops: [SchemaOp]
    /// `true` when every op is local: the node is checked in place, without a frame of its own.
    let isLocal: Bool

    init(_ label: String, _ ops: [SchemaOp]) {
        self.label = label
        self.ops = ops
        self.isLocal = ops.allSatisfy(\.isLocal)
    }
}
