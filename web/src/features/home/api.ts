import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../lib/api-client';

/** The home or about page the administrator wrote: Markdown, HTML or an address to frame. */
export function useSiteContent(path: '/api/home_page_content' | '/api/about') {
  return useQuery({
    queryKey: ['site-content', path],
    queryFn: () => apiGet<string>(path),
  });
}
