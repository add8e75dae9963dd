"""Drafting a family offline: the direct question's category phrase, filled into curated
everyday-scenario templates (no chat model needed)."""

from probe.drafting.draft import (DEFAULT_FRAMINGS, Draft, category_for, contains_direct,
                                  default_name, draft_family, draft_more, save_new,
                                  usable_templates)
from probe.drafting.phrase import Category, CategoryNotFound, find_category, parse_category
from probe.drafting.templates import TEMPLATES, Template

__all__ = ["DEFAULT_FRAMINGS", "Category", "CategoryNotFound", "Draft", "TEMPLATES", "Template",
           "category_for", "contains_direct", "default_name", "draft_family", "draft_more",
           "find_category", "parse_category", "save_new", "usable_templates"]
