"""Held-out requests for Teams, written from docs/teams.md and SPEC.md 4.7 before any search
hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("start a team of AI agents", "createAgentTeam"),
    ("change the agent team's spending limit", "updateAgentTeam"),
    ("what is my agent team up to", "getAgentTeamStatus"),
    ("recruit another agent for the team", "hireTeamMember"),
    ("dismiss an agent from the crew", "fireTeamMember"),
    ("swap the toolkits of an agent", "reassignMemberKits"),
    ("the agent team's projects", "getTeamProjects"),
    ("messages in an agent team project", "getProjectMessages"),
    ("hand the agent team a new job", "sendTeamPrompt"),
    ("add a comment to an agent team card", "addTeamCardComment"),
    ("toolkits for AI agents", "getAvailableAgentToolkits"),
]
