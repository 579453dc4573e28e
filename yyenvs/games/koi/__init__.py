"""Yin Yang Koi: two koi families on a wrapping pond (spec: ``seeds/koi.md``)."""
