"""Blog: the workspace's posts (one language each; a translation points at its original),
categories, comments (pending, approved or spam), the images made for posts, and the blog's
cache generation. Workspace schema.

A post is an `OwnedRecord`: its author owns it, and it is the workspace's or private to them. Only a
published post visible to the workspace reaches the public pages (apps.blog.public). Its slug is
unique among the live posts of its language. Its body is HTML, sanitised on save (apps.blog.html).
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.blog.permissions import BlogPerm
from apps.core.records import Access, OwnedRecord, Record, live_once

USER = settings.AUTH_USER_MODEL


class Category(Record):
    access = Access(
        BlogPerm,
        visibility="workspace",
        change=BlogPerm.EDIT,
        label=_("Blog category"),
        find_with="listBlogCategories",
    )

    name = models.CharField(_("name"), max_length=80)
    slug = models.SlugField(_("slug"), max_length=80)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("blog category")
        verbose_name_plural = _("blog categories")
        constraints = [live_once("blog_category_slug_once", "slug")]

    def __str__(self) -> str:
        return self.name


class Post(OwnedRecord):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SCHEDULED = "scheduled", _("scheduled")
        PUBLISHED = "published", _("published")
        UNPUBLISHED = "unpublished", _("unpublished")

    access = Access(
        BlogPerm,
        label=_("Blog post"),
        find_with="searchBlogPosts",
        trash_state=_("deleted"),
    )

    title = models.CharField(_("title"), max_length=200)
    slug = models.SlugField(_("slug"), max_length=120, allow_unicode=True)
    language = models.CharField(_("language"), max_length=12, default="en")
    body = models.TextField(_("body"), blank=True)
    excerpt = models.TextField(_("excerpt"), blank=True)
    seo_title = models.CharField(_("SEO title"), max_length=200, blank=True)
    seo_description = models.CharField(_("SEO description"), max_length=300, blank=True)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    # The time a scheduled post is due (the sweeper publishes it then: apps.blog.tasks).
    publish_at = models.DateTimeField(_("publish at"), null=True, blank=True)
    published_at = models.DateTimeField(_("published"), null=True, blank=True)
    categories = models.ManyToManyField(Category, blank=True, related_name="posts")
    tags = models.JSONField(_("tags"), default=list, blank=True)
    # A translation's original (the original itself has none): its group is the original and
    # every post pointing at it.
    translation_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="translations"
    )
    # The original's version this translation was made from; the original counts its changes.
    version = models.PositiveIntegerField(default=1)
    source_version = models.PositiveIntegerField(default=0)
    featured_image = models.ForeignKey(
        "blog.Image", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Written or rewritten by a model (translateBlogPost, polishBlogPost): said on the public page.
    ai_generated = models.BooleanField(_("made with AI"), default=False)

    class Meta:
        ordering = ["-published_at", "-created_at", "-id"]
        verbose_name = _("blog post")
        constraints = [live_once("blog_post_slug_once", "slug", "language")]
        indexes = [models.Index(fields=["status", "publish_at"], name="blog_post_due")]

    def __str__(self) -> str:
        return self.title

    @property
    def original(self) -> "Post":
        return self.translation_of or self

    @property
    def stale(self) -> bool:
        """A translation whose original changed after it was made."""
        original = self.translation_of
        return original is not None and original.version > self.source_version

    @property
    def is_public(self) -> bool:
        return (
            self.status == self.Status.PUBLISHED
            and self.visibility == "workspace"
            and self.deleted_at is None
        )


class Comment(Record):
    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        APPROVED = "approved", _("approved")
        SPAM = "spam", _("spam")

    access = Access(
        BlogPerm,
        through="post",
        delete=BlogPerm.PUBLISH,
        label=_("Blog comment"),
        find_with="listBlogComments",
    )

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replies"
    )
    author = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    author_name = models.CharField(_("name"), max_length=100)
    # Personal data (docs/privacy.md): never shown on the public pages.
    author_email = models.EmailField(_("e-mail"), max_length=254, blank=True)
    body = models.TextField(_("comment"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("blog comment")
        indexes = [models.Index(fields=["post", "status"], name="blog_comment_post_status")]

    def __str__(self) -> str:
        return f"comment {self.pk} on {self.post_id}"


class Image(models.Model):
    """An image made for a post (generateBlogImage, generateBlogContentImage): PNG bytes written
    again without metadata, its alt text, the prompt it was made from. Served with its post."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="images")
    data = models.BinaryField()
    mime_type = models.CharField(max_length=40, default="image/png")
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    alt = models.CharField(_("alt text"), max_length=300)
    prompt = models.TextField(blank=True)
    model = models.CharField(max_length=100, blank=True)
    ai_generated = models.BooleanField(default=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("blog image")

    def __str__(self) -> str:
        return f"image {self.pk} of {self.post_id}"


class Cache(models.Model):
    """The blog's one row: its public pages' generation, counted up by every publish, unpublish and
    clearBlogCache, so their ETags and cached feeds change at once."""

    generation = models.PositiveIntegerField(default=1)
    cleared_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("blog cache")

    def __str__(self) -> str:
        return f"generation {self.generation}"
