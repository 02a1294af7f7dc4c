"""Held-out requests for the Blog area, written from docs/blog.md and SPEC.md 4.7 before any search
hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("start a blog article about our new office", "createBlogPost"),
    ("fix a typo in the blog post's excerpt", "updateBlogPost"),
    ("get rid of an old article on our blog", "deleteBlogPost"),
    ("go live with the article on Thursday morning", "publishBlogPost"),
    ("hide the published article from readers", "unpublishBlogPost"),
    ("look up articles tagged product", "searchBlogPosts"),
    ("blog status at a glance", "getBlogSummary"),
    ("what topics are our articles filed under", "listBlogCategories"),
    ("answer a reader under the article", "createBlogComment"),
    ("reader comments pending approval", "listBlogComments"),
    ("delete a comment left on an article", "deleteBlogComment"),
    ("versions of this article in other languages", "getPostTranslations"),
    ("have the article translated to Italian", "translateBlogPost"),
    ("proofread and tidy the article's prose", "polishBlogPost"),
    ("make a cover image for the article", "generateBlogImage"),
    ("insert a generated picture in the article body", "generateBlogContentImage"),
    ("share link for the article", "shareBlogPost"),
    ("purge the blog cache", "clearBlogCache"),
]
