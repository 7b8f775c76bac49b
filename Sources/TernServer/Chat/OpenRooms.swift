import Synchronization

/// Who is in which open channel right now. Entering is per connection (a socket that entered gets
/// the channel's messages; the user's other sockets do not); a channel's participants are the users
/// with at least one such connection. Nothing here is stored: a restart empties every channel, and
/// the clients enter again when they reconnect.
final class OpenRooms: Sendable {
    struct Room {
        /// connection id → connection.
        var connections: [Int: ClientConnection] = [:]
        /// user id → how many of their connections entered.
        var users: [String: Int] = [:]
    }

    struct State {
        var rooms: [String: Room] = [:]
        /// connection id → channels it entered.
        var entered: [Int: Set<String>] = [:]
    }

    enum EnterResult: Equatable {
        /// Entered; `newUser` when the user was not a participant before.
        case entered(count: Int, newUser: Bool)
        case alreadyIn(count: Int)
        case tooManyChannels
        case full
    }

    let state = Mutex(State())

    /// - Parameter elsewhere: the channel's participants on the other nodes of a cluster (they
    ///   count toward `maxParticipants` too).
    func enter(_ conn: ClientConnection, _ url: String, maxChannels: Int, maxParticipants: Int, elsewhere: Set<String> = []) -> EnterResult {
        state.withLock { s in
            var room = s.rooms[url] ?? Room()
            if room.connections[conn.id] != nil { return .alreadyIn(count: room.users.count) }
            if (s.entered[conn.id]?.count ?? 0) >= maxChannels { return .tooManyChannels }
            let newUser = room.users[conn.userId] == nil
            let inside = elsewhere.isEmpty ? room.users.count : elsewhere.union(room.users.keys).count
            if newUser && !elsewhere.contains(conn.userId) && inside >= maxParticipants { return .full }
            room.connections[conn.id] = conn
            room.users[conn.userId, default: 0] += 1
            s.rooms[url] = room
            s.entered[conn.id, default: []].insert(url)
            return .entered(count: room.users.count, newUser: newUser)
        }
    }

    /// Takes the connection out. Returns nil when it had not entered; else the new count and whether
    /// the user left the channel altogether.
    func exit(_ conn: ClientConnection, _ url: String) -> (count: Int, userLeft: Bool)? {
        state.withLock { s in Self.remove(&s, conn, url) }
    }

    /// Takes a closed connection out of every channel it entered.
    func drop(_ conn: ClientConnection) -> [(url: String, count: Int, userLeft: Bool)] {
        state.withLock { s in
            let urls = s.entered[conn.id] ?? []
            return urls.sorted().compactMap { url in Self.remove(&s, conn, url).map { (url, $0.count, $0.userLeft) } }
        }
    }

    /// Takes a user (every connection of theirs) out of a channel: a ban. Returns the new count, or nil when they were not in.
    func expel(_ userId: String, from url: String) -> Int? {
        state.withLock { s in
            guard let room = s.rooms[url], room.users[userId] != nil else { return nil }
            var count = room.users.count
            for c in room.connections.values where c.userId == userId {
                if let r = Self.remove(&s, c, url) { count = r.count }
            }
            return count
        }
    }

    /// Empties a channel (it was deleted). Returns the connections that were in it.
    func close(_ url: String) -> [ClientConnection] {
        state.withLock { s in
            guard let room = s.rooms.removeValue(forKey: url) else { return [] }
            for id in room.connections.keys {
                s.entered[id]?.remove(url)
                if s.entered[id]?.isEmpty == true { s.entered[id] = nil }
            }
            return Array(room.connections.values)
        }
    }

    private static func remove(_ s: inout State, _ conn: ClientConnection, _ url: String) -> (count: Int, userLeft: Bool)? {
        guard var room = s.rooms[url], room.connections.removeValue(forKey: conn.id) != nil else { return nil }
        s.entered[conn.id]?.remove(url)
        if s.entered[conn.id]?.isEmpty == true { s.entered[conn.id] = nil }
        let left = (room.users[conn.userId] ?? 1) <= 1
        if left { room.users[conn.userId] = nil } else { room.users[conn.userId]! -= 1 }
        if room.connections.isEmpty { s.rooms[url] = nil } else { s.rooms[url] = room }
        return (room.users.count, left)
    }

    func connections(in url: String) -> [ClientConnection] {
        state.withLock { s in s.rooms[url].map { Array($0.connections.values) } ?? [] }
    }

    func participantCount(_ url: String) -> Int {
        state.withLock { s in s.rooms[url]?.users.count ?? 0 }
    }

    /// Participants by user id.
    func participants(_ url: String) -> [String] {
        state.withLock { s in (s.rooms[url]?.users.keys).map { $0.sorted() } ?? [] }
    }

    /// Every channel with participants → its participants by user id.
    func allParticipants() -> [String: [String]] {
        state.withLock { s in s.rooms.mapValues { $0.users.keys.sorted() } }
    }
    func isParticipant(_ url: String, _ userId: String) -> Bool {
        state.withLock { s in s.rooms[url]?.users[userId] != nil }
    }

    func hasEntered(_ conn: ClientConnection, _ url: String) -> Bool {
        state.withLock { s in s.entered[conn.id]?.contains(url) ?? false }
    }
}
