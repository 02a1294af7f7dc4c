"""Social posting: a workspace's connected Mastodon and Bluesky accounts and the posts sent through
them, now or at a stored time (Celery beat delivers due posts). A shared service, not an area: it
has no tools of its own; Blog's shareBlogPost and Marketing's social tools post through its public
module, `apps.social.api`. docs/social.md."""
