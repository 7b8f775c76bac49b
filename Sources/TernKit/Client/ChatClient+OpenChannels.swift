import Foundation
import Logging
import TernProtocol

/// Open channels (seed 001): list, create, enter and exit (entered again automatically after a
/// reconnection), participants, update and delete by operators.
extension ChatClient {
    /// The REST path of a channel of either type.
    func channelBase(_ url: String) -> String {
        let type = openChannels.isOpen(url) ? "open_channels" : "group_channels"
        return "/v3/\(type)/\(RESTClient.segment(url))"
    }

    /// Open channels the user is in now.
    public var enteredOpenChannels: [OpenChannel] { openChannels.channels }

    public func isOpenChannel(_ url: String) -> Bool { openChannels.isOpen(url) }

    /// Reads an open channel from the server.
    public func getOpenChannel(_ url: String) async throws -> OpenChannel {
        let payload = try await rest.request(
            "GET", "/v3/open_channels/\(RESTClient.segment(url))", sessionKey: try requireSession(), as: OpenChannelPayload.self)
        return keep(OpenChannel(payload))
    }

    /// Keeps what the server said about an open channel (and announces a change of one the user is in).
    @discardableResult
    func keep(_ channel: OpenChannel) -> OpenChannel {
        if let changed = openChannels.keep(channel) { emit(.openChannelUpdated(changed)) }
        return channel
    }

    /// One page of open channels, newest first; `token` continues a listing (`next` is "" on the last page).
    public func openChannelList(
        nameContains: String = "", urlContains: String = "", customTypes: [String] = [], limit: Int = 20, token: String? = nil
    ) async throws -> (channels: [OpenChannel], next: String) {
        var query: [(String, String)] = [("limit", String(min(max(limit, 1), 100))), ("token", token ?? "")]
        if !nameContains.isEmpty { query.append(("name_contains", nameContains)) }
        if !urlContains.isEmpty { query.append(("url_contains", urlContains)) }
        if !customTypes.isEmpty { query.append(("custom_types", customTypes.joined(separator: ","))) }
        let page = try await rest.request(
            "GET", RESTClient.path("/v3/open_channels", query), sessionKey: try requireSession(), as: OpenChannelPage.self)
        return (page.channels.map { keep(OpenChannel($0)) }, page.next)
    }

    /// Creates an open channel; the current user becomes its operator unless `operatorIds` says otherwise.
    public func createOpenChannel(
        name: String, url: String? = nil, coverUrl: String = "", customType: String = "", data: String = "", operatorIds: [String]? = nil
    ) async throws -> OpenChannel {
        var body: [String: Any] = [
            "name": name, "cover_url": coverUrl, "custom_type": customType, "data": data, "operators": operatorIds ?? [me],
        ]
        if let url { body["channel_url"] = url }
        let payload = try await rest.request(
            "POST", "/v3/open_channels", body: RESTClient.json(body), sessionKey: try requireSession(), as: OpenChannelPayload.self)
        return keep(OpenChannel(payload))
    }

    /// Changes an open channel (operators only).
    @discardableResult
    public func updateOpenChannel(
        _ url: String, name: String? = nil, coverUrl: String? = nil, customType: String? = nil, data: String? = nil, operatorIds: [String]? = nil
    ) async throws -> OpenChannel {
        var body: [String: Any] = [:]
        if let name { body["name"] = name }
        if let coverUrl { body["cover_url"] = coverUrl }
        if let customType { body["custom_type"] = customType }
        if let data { body["data"] = data }
        if let operatorIds { body["operators"] = operatorIds }
        let payload = try await rest.request(
            "PUT", "/v3/open_channels/\(RESTClient.segment(url))", body: RESTClient.json(body), sessionKey: try requireSession(),
            as: OpenChannelPayload.self)
        return keep(OpenChannel(payload))
    }

    /// Deletes an open channel (operators only; others get 400108).
    public func deleteOpenChannel(_ url: String) async throws {
        try await call("DELETE", "/v3/open_channels/\(RESTClient.segment(url))", nil)
        dropOpen(url, .deleted)
    }

    /// Enters an open channel: its messages and events reach this connection until ``exitOpenChannel(_:)``.
    /// At most 10 at once (400203); a banned user is refused (900100).
    @discardableResult
    public func enterOpenChannel(_ url: String) async throws -> OpenChannel {
        let ack = try await enterFrame(.enter, url)
        var channel = (try? await getOpenChannel(url)) ?? OpenChannel(url: url)
        channel.participantCount = ack.participantCount
        openChannels.enter(channel)
        emit(.openChannelEntered(channel))
        return channel
    }

    /// Leaves an open channel.
    public func exitOpenChannel(_ url: String) async throws {
        _ = try await enterFrame(.exit, url)
        dropOpen(url, .exited)
    }

    func enterFrame(_ command: Command, _ url: String) async throws -> EnterExitAck {
        let reqId = newRequestId()
        let reply = try await request(Frame(command: command, ChannelRequest(channelUrl: url, reqId: reqId)), reqId: reqId)
        if reply.command == .error {
            let e = try reply.decode(ErrorPayload.self)
            throw SendbirdError(ErrorCode(e.code), e.message)
        }
        return try reply.decode(EnterExitAck.self)
    }

    func dropOpen(_ url: String, _ reason: OpenChannelExit) {
        guard openChannels.exit(url) else { return }
        emit(.openChannelExited(url: url, reason: reason))
    }

    /// After a reconnection the server has forgotten which open channels this connection was in: enter them again.
    func reenterOpenChannels() async {
        for url in openChannels.channels.map(\.url) {
            do {
                let ack = try await enterFrame(.enter, url)
                if let c = openChannels.reentered(url, participantCount: ack.participantCount) { emit(.openChannelEntered(c)) }
            } catch let e as SendbirdError where e.code == .bannedFromChannel || e.code == .channelNotFound {
                dropOpen(url, e.code == .bannedFromChannel ? .banned : .deleted)
            } catch {
                logger.debug("could not enter \(url) again: \(error)")
            }
        }
    }

    /// Participants of an open channel (online now), by user id; `next` continues.
    public func participants(in url: String, limit: Int = 50, token: String? = nil) async throws -> (users: [User], next: String) {
        let page = try await rest.request(
            "GET", RESTClient.path("/v3/open_channels/\(RESTClient.segment(url))/participants", [("limit", String(limit)), ("token", token ?? "")]),
            sessionKey: try requireSession(), as: UserListPage.self)
        return (page.users.map(User.init), page.next)
    }

    // MARK: Incoming

    /// `SYEV` of an open channel the user is in.
    func handleOpenChannelEvent(_ frame: Frame, _ e: SystemEvent) {
        let data = (try? frame.decode(ChannelEventData.Envelope.self))?.data ?? ChannelEventData.empty
        let kind = data.kind(e.cat)
        emit(.channelEvent(channelUrl: e.channelUrl, kind))
        switch openChannels.apply(kind, in: e.channelUrl, me: me) {
        case .nothing: break
        case .updated(let c): emit(.openChannelUpdated(c))
        case .exited(let reason): emit(.openChannelExited(url: e.channelUrl, reason: reason))
        case .reread: Task { _ = try? await self.getOpenChannel(e.channelUrl) }
        }
    }

    /// `MCNT` for open channels.
    func applyParticipantCounts(_ counts: [MemberCountFrame.Open]) {
        for o in counts {
            if let n = o.participantCount, let c = openChannels.participantCount(n, in: o.channelUrl) { emit(.openChannelUpdated(c)) }
        }
    }
}
