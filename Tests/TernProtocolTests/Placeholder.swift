import Testing
@testable import TernProtocol

