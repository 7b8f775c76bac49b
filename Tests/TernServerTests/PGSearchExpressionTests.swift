import Testing

@testable import TernServer

/// ``PGSearchExpression``'s parser on its own: FTS5's operators and their grouping.
@Suite("PostgreSQL search expression parser")
struct PGSearchExpressionTests {
    /// The tree as text: phrases by index, operators in prefix form.
    func shape(_ n: PGSearchExpression.Node) -> String {
        switch n {
        case .phrase(let i, let prefix, _): "\(i)\(prefix ? "*" : "")"
        case .and(let a, let b): "and(\(shape(a)),\(shape(b)))"
        case .or(let a, let b): "or(\(shape(a)),\(shape(b)))"
        case .not(let a, let b): "not(\(shape(a)),\(shape(b)))"
        }
    }

    @Test("OR binds loosest, then AND (or words side by side), then NOT; each chains to the left")
    func precedence() throws {
        #expect(shape(try PGSearchExpression.parse("a OR b OR c").root) == "or(or(0,1),2)")
        #expect(shape(try PGSearchExpression.parse("a b OR c AND d").root) == "or(and(0,1),and(2,3))")
        #expect(shape(try PGSearchExpression.parse("a NOT b NOT c").root) == "not(not(0,1),2)")
        #expect(shape(try PGSearchExpression.parse("a NOT b OR c*").root) == "or(not(0,1),2*)")
        #expect(shape(try PGSearchExpression.parse("(a OR b) c").root) == "and(or(0,1),2)")
    }

    @Test("A dangling operator is a syntax error")
    func errors() {
        #expect(throws: (any Error).self) { try PGSearchExpression.parse("a OR") }
        #expect(throws: (any Error).self) { try PGSearchExpression.parse("NOT a") }
        #expect(throws: (any Error).self) { try PGSearchExpression.parse("") }
    }
}
