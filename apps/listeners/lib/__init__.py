"""What the Listeners area runs on that knows no door and checks no permission: flows (their
steps, mappings and conditions), schedules, and the signatures of inbound webhooks."""
