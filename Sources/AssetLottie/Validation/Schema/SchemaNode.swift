/// One subschema of the compiled Lottie schema: its ops, in the order they run, and a label.
struct SchemaNode: Sendable {
    /// How messages name this node: its `$defs` path (`layers/shape-layer`), else its title, else a
    /// short description of what it admits.
    let label: String
    let ops: [SchemaOp]
    /// `true` when nothing the node evaluates (through members, elements or combinators) reaches it again:
    /// the schema bounds how deep its check goes, and it is checked in place, without frames. Only the
    /// recursive structures (layers, shapes, assets) are not.
    let isLocal: Bool

    init(_ label: String, local: Bool, _ ops: [SchemaOp]) {
        self.label = label
        self.ops = ops
        self.isLocal = local
    }
}
