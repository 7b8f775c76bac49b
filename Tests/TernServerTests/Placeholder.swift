import Testing
@testable import TernServer

