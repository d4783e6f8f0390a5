/// One subschema of the compiled Lottie schema: its ops, in the order they run, and a label.
struct SchemaNode: Sendable {
    /// How messages name this node: its `$defs` path (`layers/shape-layer`), else its title, else a
    /// short description of what it admits.
    let label: String
    let ops: [SchemaOp]
    /// `true` when the node never descends into the instance (no `properties`, `additionalProperties` or
    /// `items`, itself or in the nodes its combinators evaluate): it is checked in place, without a frame.
    let isLocal: Bool

    init(_ label: String, local: Bool, _ ops: [SchemaOp]) {
        self.label = label
        self.ops = ops
        self.isLocal = local
    }
}
