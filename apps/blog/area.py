"""The Blog area, as the rest of the service knows it (apps.core.areas): the workspace's posts,
published on its own host (/blog/), with their translations, categories and comments."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.blog.permissions import BlogPerm
from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem

area = areas.declare(
    title=_("Blog"),
    group=areas.Group.CONTENT,
    description=_("The workspace's public blog: posts, translations, scheduling, comments, feeds"),
    words="blog article slug rss feed reader comment category",
    hints={
        "createBlogPost": "draft a new blog post article for the company blog",
        "updateBlogPost": "change edit a blog post article's title slug tags category excerpt seo",
        "deleteBlogPost": "remove trash an old outdated duplicate blog post article",
        "publishBlogPost": "publish a blog post article, put it live, schedule it to go out at a time",
        "unpublishBlogPost": "take a blog post article off the blog, hide it, cancel its schedule",
        "searchBlogPosts": "find blog posts articles by words status draft tag category language",
        "getBlogSummary": "blog overview how is the blog doing, posts by status, next scheduled article",
        "listBlogCategories": "blog categories topics of articles with counts",
        "createBlogComment": "comment on reply to a reader under a blog post article",
        "listBlogComments": "blog comments readers left under an article, pending moderation",
        "deleteBlogComment": "delete a spam abusive reader comment on a blog article",
        "getPostTranslations": "blog post article in other languages, its language versions, out of date",
        "translateBlogPost": (
            "translate a blog article into another language, make a version in french spanish german"
        ),
        "polishBlogPost": "improve proofread the wording grammar of a blog post article, read better",
        "generateBlogImage": "AI header cover featured image picture for a blog post article",
        "generateBlogContentImage": "AI illustration picture inside a blog article's text body",
        "shareBlogPost": "share a blog post article link on social media linkedin mastodon",
        "clearBlogCache": "clear purge refresh the blog's cache, feed and sitemap",
    },
    profiles={
        "blog": (
            "getBlogSummary",
            "createBlogPost",
            "updateBlogPost",
            "deleteBlogPost",
            "searchBlogPosts",
            "publishBlogPost",
            "unpublishBlogPost",
            "polishBlogPost",
            "translateBlogPost",
            "getPostTranslations",
            "generateBlogImage",
            "generateBlogContentImage",
            "listBlogCategories",
            "createBlogComment",
            "listBlogComments",
            "deleteBlogComment",
            "shareBlogPost",
            "clearBlogCache",
        ),
    },
    nav=[NavItem("blog", _("Blog"), "blog:posts", BlogPerm.VIEW, order=40)],
    kinds=[
        Kind(
            "blog_post",
            "blog.Post",
            title="title",
            url=page("blog:posts", anchor="post-"),
            search=("title", "excerpt", "body"),
            named=_("Blog post"),
        )
    ],
    not_kinds={
        "blog.Category": "a label posts carry (listBlogCategories), not named or followed",
        "blog.Comment": "a reader's words under a post, reached through the post",
    },
    periodic={
        # Scheduled posts whose time has come, published (a row's publish_at: none lost across restarts).
        "blog-publish-due": areas.Periodic("apps.blog.tasks.publish_due", crontab(minute="*")),
    },
    settings={
        # The blog's main language: its posts are at /blog/<slug>/, the others at /blog/<language>/<slug>/.
        "ATRIUM_BLOG_LANGUAGE": env.str("ATRIUM_BLOG_LANGUAGE", "en"),
        # Public comments from one address per hour at most.
        "ATRIUM_BLOG_COMMENTS_PER_HOUR": env.int("ATRIUM_BLOG_COMMENTS_PER_HOUR", 5, min=1),
        # Seconds browsers and proxies may keep the public pages before asking again (ETag).
        "ATRIUM_BLOG_CACHE_SECONDS": env.int("ATRIUM_BLOG_CACHE_SECONDS", 300, min=0),
    },
)
